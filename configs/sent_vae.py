"""The sentence-level VAE on chunk-pattern data (000 sec. 7, eq. 2-3).

  python launch.py --config=configs/sent_vae.py --workdir=workdirs/sent_vae

The data is a `blm_chunks` dataset (one sentence, one positive of its
pattern, 7 negatives of other patterns; split 2576:630:798). F1 is the
positive-class F1 of 000 Table 5.
"""

from configs import common


def get_config(arg=None):
  a = common.parse_arg(arg, source="agreement_en", cpu=False)
  c = common.base("sent_vae")
  c.data.name = f"blm_chunks/{a.source}"  # see data_builders/blm_chunks
  c.data.train_types = ("chunks",)
  c.data.test_types = ("chunks",)
  c.data.num_train = 2576 + 630
  c.data.dev_fraction = 630 / (2576 + 630)
  c.model.channels = (32,)
  c.train.score = "cosine"
  c.loss.answer_reduction = "mean"
  if a.cpu:
    common.apply_cpu_schedule(c, epochs=30)
  return c
