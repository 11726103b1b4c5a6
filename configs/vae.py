"""The authors' one-level sequence VAE (`vae`, blm_jax/models/seq_vae.py), seeds x train types.

  python launch.py --config=configs/vae.py:cpu --workdir=workdirs/vae
  python launch.py --config=configs/vae.py:reference --workdir=...

Default: their architecture (3 x 15 x 15 convolution with stride
1 x 15 x 15 over the stack of sentence arrays, latent 5, KL x latent / D)
with the project's shared training settings (dot score, eq. 1 hinge, best
dev accuracy). `reference`: also their training code (the mean of the
per-candidate hinges, the cosine to predict, the epoch of lowest dev loss).
"""

from configs import common


def get_config(arg=None):
  a = common.parse_arg(arg, dataset="spray_load", cpu=False, reference=False)
  c = common.base("vae", a.dataset)
  if a.reference:
    common.apply_authors_training(c)
  if a.cpu:
    common.apply_cpu_schedule(c, epochs=30)
  return c
