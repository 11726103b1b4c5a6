"""run_experiment(config, workdir): train a grid, then report it.

The one call behind launch.py, `blm_jax.cli.reproduce` and the benchmarks:
`trainer.train_and_evaluate` trains and predicts (config.json, log.txt,
checkpoints/), `report.write_report` writes results.json and the plots.
With several processes (docs/how-to/run-on-several-hosts.md) all of them train; process 0
alone writes the report.
"""

from __future__ import annotations

import ml_collections

from blm_jax.data import input_pipeline
from blm_jax.results import report
from blm_jax.training import distributed, trainer, variants, workdir_lock
from blm_jax.training.progress import Progress


def run_experiment(config: ml_collections.ConfigDict, workdir: str,
                   embed_fn: input_pipeline.EmbedFn | None = None,
                   data: input_pipeline.BLMData | None = None,
                   sources_fn: variants.SourcesFn | None = None,
                   progress: Progress | None = None) -> dict | None:
  """Trains every cell of `config`'s grid, evaluates and reports it.

  Arguments as `trainer.train_and_evaluate`'s. Returns the results dict
  also written to `workdir`/results.json; None on the processes other than
  process 0 of a multi-process run, which write nothing.
  """
  beside = _BaselinesBesideTraining(config, workdir, progress or Progress())
  try:  # The trainer locks the workdir; it stays locked for the report.
    outcome = trainer.train_and_evaluate(config, workdir, embed_fn=embed_fn,
                                         data=data, sources_fn=sources_fn,
                                         progress=beside)
    if not distributed.is_writer():
      return None
    return report.write_report(config, workdir, outcome, beside.pending)
  finally:
    workdir_lock.release(workdir)


class _BaselinesBesideTraining(Progress):
  """Passes every event on to `progress`; once the data is ready, starts
  the context-free baselines (`report.start_context_free`), which need
  the data but not the trained cells, in a thread beside training: on an
  accelerator the host is idle while the device trains; on a CPU they
  share its cores with the epochs."""

  def __init__(self, config: ml_collections.ConfigDict, workdir: str,
               progress: Progress):
    self._config, self._workdir, self._progress = config, workdir, progress
    self.pending = None
    # Every other event goes straight to `progress` (those added later too).
    for name in dir(Progress):
      if name.startswith("on_") and name != "on_data_ready":
        setattr(self, name, getattr(progress, name))

  def on_data_ready(self, data) -> None:
    self.pending = report.start_context_free(self._config, data,
                                             self._workdir)
    self._progress.on_data_ready(data)
