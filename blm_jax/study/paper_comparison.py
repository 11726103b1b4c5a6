"""Our numbers beside the papers' (`paper_values`), for the report.

Sections: 000 Table 4 (test instances per type, ours from each grid's
results.json), 000 Table 5 (sent_vae F1 of the `chunks_<source>` grids),
000 Figures 20-22 (the probe of those grids, beside the paper's words)
and the FFNN I->III cell against the bounds the text prints, each with a
line on what differs between their setting and ours.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from blm_jax.study import markdown_table, paper_values

# One unit's traversal "decreases the differentiation among patterns" when
# it lowers the pattern-level accuracy by more than this.
TRAVERSAL_DROP = 0.10

CHUNKS = "chunks_"


@dataclasses.dataclass(frozen=True)
class Section:
  """One section of the report: its heading, the lines before its table,
  the table, and the lines after it (what differs)."""

  heading: str
  columns: tuple
  rows: list
  before: tuple = ()
  after: tuple = ()

  def lines(self) -> list[str]:
    return ["## " + self.heading, "", *self.before,
            *markdown_table.lines(self.columns, self.rows), "", *self.after]

  def table(self) -> dict:
    """As a record keeps it (`records` renders it with `table=NAME`)."""
    return {"columns": list(self.columns), "rows": self.rows}


def _encoder(runs_of_ds: dict) -> str:
  names = {r.get("config", {}).get("encoder", "?") for r in
           runs_of_ds.values()}
  return ", ".join(sorted(names))


def what_differs(dataset: str, by_model: dict[str, dict]) -> str:
  """A dataset section's line on how its grids differ from the figures of
  000 they stand for: the encoder, the runs averaged, the data, and the
  CNN, which 000 shows no figure of."""
  seeds = "/".join(str(n) for n in sorted(
      {len(r["grid"]["seeds"]) for r in by_model.values()}))
  if dataset.startswith(CHUNKS):
    encoder = "000 sec. 7: averaged Electra token embeddings, as 32x24 arrays"
    runs = "000 sec. 7: \"average F1 score over three runs\""
  else:
    encoder = ("000 sec. 6.1: \"averaged token embeddings\" of Electra and "
               "OpenAI-GPT")
    runs = "000 sec. 6.2: \"average F1 scores [...] over three runs\""
  resampled = all(r["data"].get("sample_seed") == "the grid seed"
                  for r in by_model.values())
  sample = ("each drawing its own train/dev sample" if resampled else
            "one train/dev sample")
  parts = [f"the encoder ({_encoder(by_model)} here; {encoder})",
           f"the runs ({seeds} seeds here, {sample}; {runs})",
           "the data (this project's builders, data_builders/; the papers' "
           "own generated data in 000)"]
  if "cnn" in by_model:
    parts.append("000 prints no CNN heatmap (its footnote 18: \"We refer to "
                 "previous publications for results on CNN on Electra "
                 "embeddings\")")
  return "What differs from 000: " + "; ".join(parts) + "."


def table4(runs: dict[str, dict[str, dict]]) -> Section | None:
  """Per dataset of 000 Table 4 that was run, the paper's test sizes and
  ours."""
  rows = []
  for ds, by_model in runs.items():
    paper = paper_values.table4(ds)
    if not paper or not by_model:
      continue
    ours = next(iter(by_model.values()))["data"].get("test_sizes", {})
    rows.append([ds, *(f"{paper[t]} / {ours.get(t, '-')}"
                       for t in ("I", "II", "III"))])
  if not rows:
    return None
  return Section(
      "000 Table 4: test instances (paper / ours)",
      ("dataset", "type I", "type II", "type III"), rows, after=(
          "What differs: the paper's type I/II/III test sets come from its "
          "own generated data (90:10 split); ours from this project's "
          "builders (data_builders/), whose sizes follow the papers' "
          "templates (docs/reference/data.md). Training is 2000 sampled per type in "
          "both.", ""))


def table5(runs: dict[str, dict[str, dict]]) -> Section | None:
  """000 Table 5 (sent_vae F1, mean and SD) beside ours, in the
  paper's column order; chunk sources 000 does not have follow, with –."""
  rows = []
  papers = {src: (heading, f"{f1:.3f} ({sd:.3f})")
            for src, heading, f1, sd in paper_values.TABLE5_COLUMNS}
  ours = sorted((k[len(CHUNKS):] for k, v in runs.items()
                 if k.startswith(CHUNKS) and "sent_vae" in v),
                key=lambda s: (s not in papers, list(papers).index(s)
                               if s in papers else 0, s))
  for src in ours:
    r = runs[CHUNKS + src]["sent_vae"]
    (t, row), = r["summary"].items()
    cell = row[t]
    heading, paper = papers.get(src, (src, "–"))
    rows.append([heading, paper,
                 f"{cell['f1_mean']:.3f} ({cell['f1_std']:.3f})",
                 str(len(r["grid"]["seeds"]))])
  if not rows:
    return None
  enc = _encoder({k: v["sent_vae"] for k, v in runs.items()
                  if k.startswith(CHUNKS) and "sent_vae" in v})
  return Section(
      "000 Table 5: is the chunk pattern found (sent_vae F1)",
      ("data", "000 F1 (SD), 3 runs", "ours F1 (SD)", "seeds"), rows,
      after=(
          f"What differs: the encoder ({enc} here; Electra in 000 sec. 7) "
          "and the sent_vae objective chosen on dev "
          "(configs/sent_vae.py; `source=...,paper=True` runs eq. 2-3 as "
          "printed). Values of 000: Table 5, lines 604-605. Ours: "
          "positive-class F1, mean and sample SD over the seeds.", ""))


def text_bounds(runs: dict[str, dict[str, dict]]) -> Section | None:
  """The FFNN's I->III cell against the lower bounds 000 and 004 print."""
  rows, encoders = [], set()
  for v in paper_values.TEXT:
    r = runs.get(v.key, {}).get("ffnn")
    # A grid without the I->III cell (trained or tested on fewer types)
    # has nothing to set against the bound.
    cell = r and r["summary"].get("I", {}).get("III")
    if cell is None:
      continue
    encoders.add(r.get("config", {}).get("encoder", "?"))
    rows.append([f"{v.paper} {v.where} (line {v.line})", v.quantity,
                 f"> {v.value:.2f}",
                 f"{cell['f1_mean']:.3f} ± {cell['f1_std']:.3f}"])
  if not rows:
    return None
  return Section(
      "The FFNN's hardest spray/load cell against the papers' bound",
      ("where", "what", "paper", "ours (FFNN, I→III)"), rows, after=(
          f"What differs: the encoder ({', '.join(sorted(encoders))} here; "
          "Electra and GPT in 000, Electra in 004) and the data (this "
          "project's builders); the verdict with its interval is in the "
          "claims table.", ""))


def probe_summary(probe: dict) -> dict:
  """The numbers of one probe.json that 000 sec. 7 reads off its figures:
  the pattern-level diagonal (Figure 20 top), how far one latent unit's
  traversal lowers the accuracy (Figure 20 bottom, 21; per seed, then
  averaged) and how crisp the 2-D projection's pattern clusters are
  (Figure 22: nearest-centroid accuracy in the plane)."""
  out = {"checkpoint_epoch": probe.get("checkpoint_epoch")}
  conf = [v for c in probe.get("confusion", {}).values()
          for v in c["train_types"].values()]
  if conf:
    out["patterns"] = max(len(c["names"]) for c in
                          probe["confusion"].values())
    out["diagonal"] = float(np.mean([v["diagonal_fraction"] for v in conf]))
  cells = [c for v in probe.get("traversal", {}).get("train_types",
                                                     {}).values()
           for c in v["cells"].values()]
  if cells:
    drops = [[c["base_accuracy"] - u["min_accuracy"] for u in c["units"]]
             for c in cells]
    out["untouched_accuracy"] = float(np.mean(
        [c["base_accuracy"] for c in cells]))
    out["largest_drop"] = float(np.mean([max(d) for d in drops]))
    out["units"] = len(drops[0])
    out["units_dropping"] = float(np.mean(
        [sum(x > TRAVERSAL_DROP for x in d) for d in drops]))
  proj = list(probe.get("projection", {}).values())
  if proj:
    out["projection_nearest_centroid"] = float(np.mean(
        [p["nearest_centroid_accuracy"] for p in proj]))
    out["projection_groups"] = max(p["groups"] for p in proj)
  return out


def probing(probes: dict[str, dict]) -> Section | None:
  """000 sec. 7's probing (Figures 20-22) of the chunk grids
  (`probes`: {grid name: probe.json}) beside the paper's words."""
  headings = {src: h for src, h, *_ in paper_values.TABLE5_COLUMNS}
  rows = []
  fmt = lambda v, f=".3f": "-" if v is None else format(v, f)
  for name, probe in probes.items():
    if not set(probe) & {"confusion", "traversal", "projection"}:
      continue  # e.g. a region map alone: not one of 000's probes
    s = probe_summary(probe)
    src = name[len(CHUNKS):] if name.startswith(CHUNKS) else name
    rows.append([
        headings.get(src, name), str(s.get("patterns", "-")),
        fmt(s.get("diagonal")), fmt(s.get("untouched_accuracy")),
        fmt(s.get("largest_drop")),
        f"{fmt(s.get('units_dropping'), '.1f')} of {s.get('units', '-')}",
        f"{fmt(s.get('projection_nearest_centroid'))} "
        f"({s.get('projection_groups', '-')} patterns)"])
  if not rows:
    return None
  said = [f"> \"{q.text}\" ({q.paper} {q.where}, line {q.line})"
          for q in paper_values.PROBING]
  return Section(
      "000 Figures 20-22: is the chunk pattern in the latent layer "
      "(probing the sent_vae grids)",
      ("data", "patterns", "pattern-level diagonal (Fig. 20 top)",
       "untouched accuracy", "largest drop under one unit's traversal "
       "(Fig. 20 bottom, 21)",
       f"units lowering it by > {TRAVERSAL_DROP:.2f}",
       "PCA nearest-centroid accuracy (Fig. 22)"), rows,
      before=tuple(x for q in said for x in (q, "")), after=(
          "Ours: `python -m blm_jax.cli.probe` on each grid's test set "
          "(the confusion summed over seeds; the traversal per seed, ten "
          "values over each unit's training range, averaged over seeds; "
          "the projection of the first seed's latents, scored by how often "
          "a point's nearest pattern centroid in the plane is its own). "
          "000 reads its figures by eye and prints no numbers for them. "
          "What differs: the encoder (see Table 5's line) and the patterns "
          "of this project's blm_chunks builder; the figures of every grid "
          "are in its probe/ folder.", ""))


def region_maps(probes: dict[str, dict]) -> Section | None:
  """Where the sentence pattern lives in the embedding, per cell of each
  grid whose probe made a region map (the sparsified two-level VAE;
  `blm_jax.analysis.regions`)."""
  rows = [[name, cell, c.get("summary", "-")]
          for name, probe in probes.items()
          for cell, c in probe.get("regions", {}).get("cells", {}).items()]
  if not rows:
    return None
  return Section(
      "Where the sentence pattern lives (region maps)",
      ("data", "cell", "where"), rows, before=(
          "Per cell of each probed grid: the sentence latent unit whose "
          "variance the sentence pattern explains most (eta²), and the two "
          "embedding regions that unit reads most of its weight from "
          "(`python -m blm_jax.cli.probe --analysis=regions`; regions.png "
          "in the grid's probe/ folder).", ""))


def _parts(runs: dict[str, dict[str, dict]],
           probes: dict[str, dict] | None) -> dict[str, Section]:
  """Each section by the name its table has in the record (sections with
  nothing to show are left out)."""
  probes = probes or {}
  parts = {"table4": table4(runs), "table5": table5(runs),
           "probing": probing(probes), "region_maps": region_maps(probes),
           "bounds": text_bounds(runs)}
  return {k: v for k, v in parts.items() if v}


def sections(runs: dict[str, dict[str, dict]],
             probes: dict[str, dict] | None = None) -> list[str]:
  """The sections' markdown lines, in the report's order."""
  return [x for s in _parts(runs, probes).values() for x in s.lines()]


def tables(runs: dict[str, dict[str, dict]],
           probes: dict[str, dict] | None = None) -> dict[str, dict]:
  """The sections' tables as a record keeps them (`records` renders each
  with `table=NAME`): table4, table5, probing, region_maps, bounds."""
  return {k: s.table() for k, s in _parts(runs, probes).items()}
