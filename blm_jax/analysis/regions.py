"""Which embedding regions feed which sentence latent unit (probing's
'regions'), for solvers with a sparsified sentence encoder
(`SolverSpec.region_map`: two_level_vae_subnets).

The model's `region_masks` gives, per (window, channel) output of its
sentence convolution and per latent unit, the mask share and the effective
weight, for the latent units whose means the masked layer gives
(`units`: every unit, or under `latent_layout='interleaved'` units 0-2 of
5). Per cell this reports:
- `weight_fraction[r][u]`: the fraction of unit u's absolute input weight
  that comes from region r (summed over the channels; each column sums
  to 1): where unit u reads the embedding.
- `mask_share[r][u]`: the fraction of region r's channel outputs assigned
  to unit u (each row sums to 1; one-hot masks make it a count).
- `pattern_eta2[u]`: how much of sentence latent u's variance the sentence
  pattern explains (between-pattern over total sum of squares) on the
  probe set's context sentences: which unit carries the property.
Together they answer "where does the property live": the unit with the
highest eta^2, read through its weight_fraction column.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure


def eta_squared(x: np.ndarray, groups) -> np.ndarray:
  """[N, U] values, N group names -> [U] between-group SS / total SS."""
  groups = np.asarray(groups, dtype=object)
  total = ((x - x.mean(axis=0)) ** 2).sum(axis=0)
  between = np.zeros(x.shape[1])
  for g in set(groups):
    xs = x[groups == g]
    between += len(xs) * (xs.mean(axis=0) - x.mean(axis=0)) ** 2
  return between / np.maximum(total, 1e-12)


def cell_map(masks: dict, spans: list[dict], latents: np.ndarray,
             patterns) -> dict:
  """One cell's map from its `region_masks` (arrays [wh, ww, C, U]), the
  regions' spans and its sentence latents [N, U] with their patterns."""
  mask = np.asarray(masks["mask"])
  units = [int(u) for u in masks["units"]]
  mask = mask.reshape(-1, mask.shape[-2], len(units))  # [R, C, K]
  weight = np.abs(np.asarray(masks["weight"])).reshape(mask.shape)
  per_region = weight.sum(axis=1)  # [R, K]
  fraction = per_region / np.maximum(per_region.sum(axis=0), 1e-30)
  eta = eta_squared(latents, patterns)[units]
  best = int(np.argmax(eta))
  return {
      "regions": spans,
      "units": units,
      "weight_fraction": fraction.tolist(),
      "mask_share": mask.mean(axis=1).tolist(),
      "outputs_per_unit": mask.round().sum(axis=(0, 1)).astype(int).tolist(),
      "pattern_eta2": eta.tolist(),
      "property_unit": units[best],
      "property_regions": [int(r) for r in np.argsort(-fraction[:, best])],
  }


def summary(c: dict) -> str:
  """One cell's map in a line: the property's unit and its two regions."""
  u = c["property_unit"]
  k = c["units"].index(u)
  where = "; ".join(f"{region_label(c['regions'][r])} "
                    f"{c['weight_fraction'][r][k]:.2f}"
                    for r in c["property_regions"][:2])
  return (f"the sentence pattern lives in unit u{u} (eta2 "
          f"{c['pattern_eta2'][k]:.2f}), read from {where}")


def region_label(span: dict) -> str:
  return (f"rows {span['rows'][0]}-{span['rows'][1] - 1}, "
          f"cols {span['cols'][0]}-{span['cols'][1] - 1}")


def plot(cells: dict, grid_shape, path: str, title: str) -> None:
  """Per cell: the regions x units weight fractions (with the pattern's
  eta^2 per unit) and the sentence array coloured by the unit each
  region feeds most."""
  fig = Figure(figsize=(9, 2.6 * len(cells) + 0.8), layout="constrained")
  axes = fig.subplots(len(cells), 2, squeeze=False)
  for (name, c), (ax, ax_img) in zip(cells.items(), axes):
    frac = np.asarray(c["weight_fraction"])
    ax.imshow(frac, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_yticks(np.arange(len(c["regions"])),
                  [region_label(s) for s in c["regions"]], fontsize=5)
    ax.set_xticks(np.arange(frac.shape[1]),
                  [f"u{u}\neta2 {e:.2f}" for u, e in
                   zip(c["units"], c["pattern_eta2"])], fontsize=5)
    for i in range(frac.shape[0]):
      for j in range(frac.shape[1]):
        ax.text(j, i, f"{frac[i, j]:.2f}", ha="center", va="center",
                fontsize=4, color="black" if frac[i, j] > 0.6 else "white")
    ax.set_title(f"{name}: share of each unit's input weight per region",
                 fontsize=6)
    img = np.full(grid_shape, np.nan)
    for s, row in zip(c["regions"], np.asarray(c["mask_share"])):
      img[s["rows"][0]:s["rows"][1], s["cols"][0]:s["cols"][1]] = c[
          "units"][int(np.argmax(row))]
    shown = ax_img.imshow(img, cmap="tab10", vmin=0, vmax=9, aspect="auto")
    ax_img.set_title("sentence array: the unit most of each region's "
                     "outputs feed (colour = unit)", fontsize=6)
    fig.colorbar(shown, ax=ax_img, ticks=c["units"])
  fig.suptitle(title, fontsize=8)
  fig.savefig(path, dpi=120)
