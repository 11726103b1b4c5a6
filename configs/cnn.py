"""The CNN baseline (000 sec. 6.1, footnote 18) on a BLM dataset, seeds x train types.

  python launch.py --config=configs/cnn.py --workdir=workdirs/cnn
  python launch.py --config=configs/cnn.py:dataset=agreement_fr,cpu --workdir=...
"""

from configs import common


def get_config(arg=None):
  a = common.parse_arg(arg, dataset="spray_load", cpu=False)
  c = common.base("cnn", a.dataset)
  if a.cpu:
    common.apply_cpu_schedule(c, epochs=20)
  return c
