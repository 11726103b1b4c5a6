"""The authors' cnn_seq baseline (BaselineCNN_1DxSeq, blm_jax/models/cnn_seq.py), seeds x train types.

  python launch.py --config=configs/cnn_seq.py:cpu --workdir=workdirs/cnn_seq
  python launch.py --config=configs/cnn_seq.py:reference --workdir=...

Default: their architecture with the project's shared training settings
(000 sec. 6.1: dot score, eq. 1 hinge summed over the wrong candidates,
the epoch of best dev accuracy), as the other baselines, at learning rate
3e-4: the setting dev chose from the solver's tuning budget, ahead of
1e-3 in every seed (+0.045, +0.027, +0.030;
record studies/records/tuning_cnn_seq.json). `reference`: at the
shared learning rate 1e-3, their training code (utils/losses.py, train.py,
test.py): the mean of the per-candidate hinges, the cosine to predict, the
epoch of lowest dev loss.
"""

from configs import common


def get_config(arg=None):
  a = common.parse_arg(arg, dataset="spray_load", cpu=False, reference=False)
  c = common.base("cnn_seq", a.dataset)
  if a.reference:
    common.apply_authors_training(c)
  else:
    c.train.learning_rate = 3e-4
  if a.cpu:
    common.apply_cpu_schedule(c, epochs=20)
  return c
