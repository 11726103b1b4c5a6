"""The relation-network solver (WReN-style, blm_jax/models/relnet.py) on a BLM dataset.

  python launch.py --config=configs/relnet.py:cpu --workdir=workdirs/relnet
  python launch.py --config=configs/relnet.py:dataset=spray_load_ctx --workdir=...

It scores each candidate from learned relations between every pair of
context sentences and every (context sentence, candidate) pair, with the
margin loss of the other solvers (000 eq. 1) and the paper's training
settings (000 sec. 6.1: Adam, batch 100, 120 epochs) but for the learning
rate, 3e-3: the setting dev chose from the solver's tuning budget, ahead
of 1e-3 in every seed (+0.016, +0.023, +0.009;
record studies/records/tuning_relnet.json). The sizes are the library
defaults (panel 256 passed too, by less: +0.011 on average).
"""

from configs import common


def get_config(arg=None):
  a = common.parse_arg(arg, dataset="spray_load", cpu=False)
  c = common.base("relnet", a.dataset)
  c.train.learning_rate = 3e-3
  if a.cpu:
    common.apply_cpu_schedule(c, epochs=20)
  return c
