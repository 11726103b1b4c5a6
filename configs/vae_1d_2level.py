"""The authors' vae_1d_2level (blm_jax/models/two_level_vae_1d.py), seeds x train types.

  python launch.py --config=configs/vae_1d_2level.py:cpu --workdir=workdirs/vae_1d_2level
  python launch.py --config=configs/vae_1d_2level.py:reference --workdir=...

The two-level VAE with a dense sentence level (D -> D/2 -> latent 5 and
back) and vae2's 'conv' task level, decoding the answer with a 15x15
transposed convolution of stride 15. Its loss keys are vae2's, defaulting
to their code's (sentence terms averaged over the context, L2-normalised
sentence scores, KL weights x latent / D). Default training: the project's
shared settings (dot score, eq. 1 hinge, best dev accuracy); `reference`:
their training code (the mean of the per-candidate hinges, the cosine to
predict, the epoch of lowest dev loss).
"""

from configs import common


def get_config(arg=None):
  a = common.parse_arg(arg, dataset="spray_load", cpu=False, reference=False)
  c = common.base("vae_1d_2level", a.dataset)
  if a.reference:
    common.apply_authors_training(c)
  if a.cpu:
    common.apply_cpu_schedule(c, epochs=30)
  return c
