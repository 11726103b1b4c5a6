"""The CNN baseline (000 sec. 6.1, footnote 18) on a BLM dataset, seeds x train types.

  python launch.py --config=configs/cnn.py:cpu --workdir=workdirs/cnn
  python launch.py --config=configs/cnn.py --workdir=workdirs/cnn_paper
  python launch.py --config=configs/cnn.py:dataset=agreement_fr,cpu --workdir=...

Expected on spray/load ALT-ATL with MiniLM, on the 2-core CPU (no record:
the figures are those of the banded-convolutions note in studies/experiments/):
- `:cpu`: about 1 min with the embedding cache filled (58 s).
- paper scale, one seed (`--config.grid.seeds='(0,)'`): about 7 min of
  training at about 2,200 instances/s; train I -> test I / II / III F1
  0.997 / 0.429 / 0.286.
"""

from configs import common


def get_config(arg=None):
  a = common.parse_arg(arg, dataset="spray_load", cpu=False)
  c = common.base("cnn", a.dataset)
  if a.cpu:
    common.apply_cpu_schedule(c, epochs=20)
  return c
