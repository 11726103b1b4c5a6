"""The FFNN baseline (000 sec. 6.1) on a BLM dataset, seeds x train types.

  python launch.py --config=configs/ffnn.py --workdir=workdirs/ffnn
  python launch.py --config=configs/ffnn.py:dataset=agreement_fr,cpu --workdir=...
"""

from configs import common


def get_config(arg=None):
  a = common.parse_arg(arg, dataset="spray_load", cpu=False)
  c = common.base("ffnn", a.dataset)
  if a.cpu:
    common.apply_cpu_schedule(c, epochs=20)
  return c
