"""The two-level VAE (000 sec. 8, eq. 4-6), seeds x train types.

  python launch.py --config=configs/vae2.py --workdir=workdirs/vae2
  python launch.py --config=configs/vae2.py:dataset=cos_en,cpu --workdir=...

Scores are cosines (as in 001/003/004) and both levels use maxM (eq. 3):
the mean over negatives.
"""

from configs import common


def get_config(arg=None):
  a = common.parse_arg(arg, dataset="spray_load", cpu=False)
  c = common.base("vae2", a.dataset)
  c.model.channels = (32,)  # output channels of the 15x15 convolution
  c.train.score = "cosine"
  c.train.margin = "mean"
  if a.cpu:
    common.apply_cpu_schedule(c, epochs=30)
  return c
