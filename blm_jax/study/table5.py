"""000 Table 5 from finished sent_vae runs on the blm_chunks datasets.

`python -m blm_jax.cli.probe --table5=W1,W2,... --out=DIR`: the runs'
F1 beside 000's, rendered as the reproduction report renders it.
"""

from __future__ import annotations

import json
import os
from typing import Sequence

from blm_jax.analysis import restore as probe
from blm_jax.study import paper_comparison, paper_values

_CHUNKS = "blm_chunks/"


def table5(workdirs: Sequence[str]) -> dict:
  """The sent_vae F1 (mean, sample SD over seeds) per blm_chunks dataset,
  beside 000 Table 5 as the reproduction report renders it.

  Each workdir must hold a finished sent_vae run on a blm_chunks dataset
  (results.json). Two runs of the same dataset are an error.
  """
  ours, runs = {}, {}
  for w in workdirs:
    config = probe.load_config(w)
    path = os.path.join(w, "results.json")
    if not os.path.exists(path):
      raise FileNotFoundError(f"{path} is missing: the run in {w} has not "
                              "finished")
    if config.model.name != "sent_vae" or not config.data.name.startswith(
        _CHUNKS):
      raise ValueError(f"{w} holds a {config.model.name!r} run on "
                       f"{config.data.name!r}; Table 5 needs sent_vae runs "
                       f"on {_CHUNKS}<source>")
    source = config.data.name[len(_CHUNKS):]
    if source in ours:
      raise ValueError(f"two runs of {source!r}: {ours[source]['workdir']} "
                       f"and {w}")
    with open(path) as f:
      res = json.load(f)
    (t, row), = res["summary"].items()
    cell = row[t]
    ours[source] = {"workdir": os.path.abspath(w), "f1": cell["f1_mean"],
                    "sd": cell["f1_std"], "seeds": len(res["grid"]["seeds"]),
                    "epochs": config.train.epochs,
                    "encoder": config.encoder.name}
    runs[paper_comparison.CHUNKS + source] = {"sent_vae": res}
  paper = {k: {"heading": h, "f1": f, "sd": s}
           for k, h, f, s in paper_values.TABLE5_COLUMNS}
  section = paper_comparison.table5(runs)
  return {"ours": ours, "paper": paper,
          "markdown": "\n".join(section.lines() if section else []).rstrip()}


def write_table5(workdirs: Sequence[str], out: str) -> dict:
  """table5() written to out/table5.md and out/table5.json."""
  report = table5(workdirs)
  os.makedirs(out, exist_ok=True)
  with open(os.path.join(out, "table5.md"), "w") as f:
    f.write(report["markdown"] + "\n")
  with open(os.path.join(out, "table5.json"), "w") as f:
    json.dump(report, f, indent=1)
  return report
