"""The authors' `cnn_seq` baseline (BaselineCNN_1DxSeq in their code).

CLCL-Geneva/BLM-SNFDisentangling, baselines/baseline.py: the stacked
context [C, D] as a one-channel image, three 3x3 'VALID' convolutions with
4, 8 and 16 output channels, each followed by a ReLU, then a dense layer to
D, also followed by a ReLU. It is the CNN of 000 footnote 18 with those
channel counts and the output ReLU, so it is built from `cnn.CNN`.

Where their code and the paper or our CNN differ, and which we follow:
- Their dense layer expects the sentence axis to shrink to one row
  (16 * (D - 6) inputs), which holds only for 7 context sentences; ours
  takes whatever the convolutions leave ((C - 6) x (D - 6) x 16), so the
  same module runs on any context length of at least 7 (checked).
- Their flattening order is (channel, row, column), ours (row, column,
  channel) (`cnn.CNN`): a permutation of the dense layer's rows, so the
  two compute the same function (tests/models/test_cnn_seq.py maps one set of
  weights onto the other).
- Their output ReLU clips the predicted embedding at 0, although sentence
  embeddings have negative coordinates; the paper says nothing of it. We
  follow their code here, since cnn_seq exists only in their code.
- Their training loop (utils/losses.py, train.py) trains on the mean of
  the per-candidate hinges of the dot scores, predicts with the cosine
  and keeps the epoch of lowest dev loss: configs/cnn_seq.py:reference.
"""

from __future__ import annotations

from blm_jax.models import cnn, registry

DEFAULTS = {"channels": (4, 8, 16), "output_relu": True}


def _build(model_cfg, loss_cfg, *, embed_dim, num_context, score):
  del loss_cfg, num_context, score
  return cnn.CNN(embed_dim=embed_dim, channels=tuple(model_cfg.channels),
                 output_relu=model_cfg.output_relu)


def _check_data(config, data) -> None:
  cnn.check_context(config.model.channels, data.num_context)


SPEC = registry.SolverSpec(
    name="cnn_seq",
    model=DEFAULTS,
    build=_build,
    check_data=_check_data,
    scan_on=cnn.SPEC.scan_on)
