"""Encoder probes tied to the design: does a layer's sentence vector carry
the attributes the BLM's rules vary?

For one encoder layer and one attribute (`SentenceTable.attributes`), a
linear probe (softmax regression) and a small MLP map each sentence vector
to the attribute's value. Probes are trained and tested on disjoint
lexical frames: instances that share a sentence are one frame (connected
components; in type I data, one verb's material), and a seeded fifth of
the frames is held out, so a probe cannot read the value off a word it has
seen with it.

Two numbers say what the probes' errors cost the task:

- compounding: the share of held-out instances whose every sentence
  (context and candidates) has every attribute read right; one wrong
  attribute anywhere can change the answer;
- probe-then-solve: the attribute-relations reference model
  (`results.gold_ceiling`), trained on the gold attributes of the
  training frames, answering the held-out instances from the probed
  attributes (all of them, then each one alone with the others gold):
  what these vectors allow a solver that reads them perfectly.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np
import optax

from blm_jax.data.sentence_table import SentenceTable
from blm_jax.models import attribute_relations
from blm_jax.results import gold_ceiling
from data_builders.common.instances import stable_seed

PROBES = ("linear", "mlp")


@dataclasses.dataclass(frozen=True)
class ProbeSettings:
  """Full-batch AdamW fits on at most `max_train` training sentences (a
  seeded sample: CPU-sized); the MLP has one hidden layer shared by the
  attributes and a head per attribute."""

  steps: int = 300
  learning_rate: float = 1e-2
  weight_decay: float = 1e-4
  mlp_hidden: int = 64
  max_train: int = 3000
  test_fraction: float = 0.2
  seed: int = 0


def frames(table: SentenceTable) -> np.ndarray:
  """[N] int: each instance's frame, the connected component of instances
  that share a sentence (context or candidate)."""
  parent = list(range(len(table.sentences)))

  def find(x):
    while parent[x] != x:
      parent[x] = parent[parent[x]]
      x = parent[x]
    return x

  rows = [np.concatenate([c[m], a[am]]) for c, m, a, am in zip(
      table.context, table.context_mask, table.answers, table.answer_mask)]
  for row in rows:
    root = find(int(row[0]))
    for s in row[1:]:
      r = find(int(s))
      if r != root:
        parent[r] = root
  roots = [find(int(row[0])) for row in rows]
  ids = {r: i for i, r in enumerate(dict.fromkeys(roots))}
  return np.asarray([ids[r] for r in roots], np.int64)


def held_out_frames(frame_ids: np.ndarray, fraction: float, seed: int
                    ) -> np.ndarray:
  """[N] bool: the instances whose frame is held out (a seeded `fraction`
  of the frames, at least one; raises when there is only one frame)."""
  distinct = sorted(set(int(f) for f in frame_ids))
  if len(distinct) < 2:
    raise ValueError(
        f"probes need at least two lexical frames to train and test on "
        f"disjoint ones; these instances form {len(distinct)} (their "
        "sentences are all connected); probe type I data")
  order = sorted(distinct, key=lambda f: stable_seed("probe frames", seed, f))
  held = set(order[:max(1, int(round(fraction * len(distinct))))])
  return np.asarray([int(f) in held for f in frame_ids])


def sentence_split(table: SentenceTable, held_instances: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
  """([S] bool train, [S] bool test): the sentences of the training frames'
  and of the held-out frames' instances (frames share no sentence)."""
  def used(rows):
    out = np.zeros(len(table.sentences), bool)
    sub = table.select(np.flatnonzero(rows))
    out[sub.context[sub.context_mask]] = True
    out[sub.answers[sub.answer_mask]] = True
    return out
  return used(~held_instances), used(held_instances)


def _heads(params, x, mlp: bool):
  """[n, D] -> [n, sum of value counts] logits of every attribute."""
  if mlp:
    x = jax.nn.relu(x @ params["w1"] + params["b1"])
  return x @ params["w"] + params["b"]


@functools.partial(jax.jit, static_argnames=("sizes", "mlp", "settings"))
def _fit_probes(key, x, y, sizes: tuple[int, ...], mlp: bool,
                settings: ProbeSettings):
  """Every attribute's probe at once: linear heads on x (independent, one
  per attribute) or heads on one shared hidden layer; y [n, A] (-1: the
  sentence lacks it, no loss)."""
  d = x.shape[1]
  k1, k2 = jax.random.split(key)
  width = settings.mlp_hidden if mlp else d
  params = {"w": jax.random.normal(k1, (width, sum(sizes))) * width ** -0.5,
            "b": jnp.zeros((sum(sizes),))}
  if mlp:
    params.update(w1=jax.random.normal(k2, (d, width)) * (2 / d) ** 0.5,
                  b1=jnp.zeros((width,)))
  tx = optax.adamw(settings.learning_rate,
                   weight_decay=settings.weight_decay)
  starts = np.cumsum((0,) + sizes)

  def loss(p):
    logits = _heads(p, x, mlp)
    total = 0.0
    for j, k in enumerate(sizes):
      have = y[:, j] >= 0
      ce = optax.softmax_cross_entropy_with_integer_labels(
          logits[:, starts[j]:starts[j] + k], jnp.maximum(y[:, j], 0))
      total += jnp.where(have, ce, 0.0).sum() / jnp.maximum(have.sum(), 1)
    return total

  def step(carry, _):
    p, s = carry
    updates, s = tx.update(jax.grad(loss)(p), s, p)
    return (optax.apply_updates(p, updates), s), None

  (params, _), _ = jax.lax.scan(step, (params, tx.init(params)), None,
                                length=settings.steps)
  return params


def probe_attributes(embeddings: np.ndarray, table: SentenceTable,
                     train: np.ndarray, test: np.ndarray,
                     settings: ProbeSettings = ProbeSettings()
                     ) -> tuple[dict, dict]:
  """({probe: {attribute: test accuracy}}, {probe: [S, A] codes}): the
  probes fitted on (a sample of) the `train` sentences, scored on the
  `test` ones that have each attribute; the codes are the gold ones with
  every sentence's present attributes replaced by the probe's reading."""
  x = np.asarray(embeddings, np.float32)
  fit_rows = np.flatnonzero(train)
  if len(fit_rows) > settings.max_train:
    rng = np.random.default_rng(settings.seed)
    fit_rows = np.sort(rng.choice(fit_rows, settings.max_train,
                                  replace=False))
  mean, std = x[fit_rows].mean(0), x[fit_rows].std(0) + 1e-6
  x = jnp.asarray((x - mean) / std)
  sizes = tuple(int(k) for k in table.attribute_sizes)
  starts = np.cumsum((0,) + sizes)
  y = table.attributes
  scores = {p: {} for p in PROBES}
  codes = {p: y.copy() for p in PROBES}
  for kind in PROBES:
    params = _fit_probes(jax.random.key(settings.seed), x[fit_rows],
                         jnp.asarray(y[fit_rows]), sizes, kind == "mlp",
                         settings)
    logits = np.asarray(_heads(params, x, kind == "mlp"))
    for j, name in enumerate(table.attribute_names):
      pred = logits[:, starts[j]:starts[j + 1]].argmax(-1)
      have = y[:, j] >= 0
      codes[kind][have, j] = pred[have]
      rows = test & have
      scores[kind][name] = (float(np.mean(pred[rows] == y[rows, j]))
                            if rows.any() else float("nan"))
  return scores, codes


def compounding(table: SentenceTable, codes: np.ndarray) -> float:
  """The share of `table`'s instances whose every sentence has every
  attribute read as gold."""
  right = (codes == table.attributes).all(1)
  ok = [right[c[m]].all() and right[a[am]].all() for c, m, a, am in zip(
      table.context, table.context_mask, table.answers, table.answer_mask)]
  return float(np.mean(ok)) if ok else float("nan")


def probe_then_solve(params: dict, test: SentenceTable, codes: np.ndarray
                     ) -> dict:
  """The reference model (trained on gold attributes) on `test`: 'gold',
  'probed' (every attribute probed) and, per attribute, that one probed."""
  out = {"gold": gold_ceiling.accuracy(params, test),
         "probed": gold_ceiling.accuracy(params, test, codes)}
  for j, name in enumerate(test.attribute_names):
    one = test.attributes.copy()
    one[:, j] = codes[:, j]
    out[f"only {name}"] = gold_ceiling.accuracy(params, test, one)
  return out


def diagnose_layers(layers: dict, table: SentenceTable,
                    settings: ProbeSettings = ProbeSettings(),
                    reference: attribute_relations.Settings = (
                        attribute_relations.Settings()),
                    ) -> dict:
  """The probe table of one design: {layer: {probe: {'accuracy':
  {attribute: acc}, 'compounding': share, 'probe_then_solve': {...}}}}
  plus the frames and sizes it was measured on. `layers`: {name: [S, D]}
  embeddings, rows as `table.sentences`."""
  if not table.attribute_names:
    raise ValueError(gold_ceiling.missing_line(table))
  frame_ids = frames(table)
  held = held_out_frames(frame_ids, settings.test_fraction, settings.seed)
  train_s, test_s = sentence_split(table, held)
  train_t = table.select(np.flatnonzero(~held))
  test_t = table.select(np.flatnonzero(held))
  params = gold_ceiling.fit(train_t, settings.seed, reference)
  out = {"attributes": list(table.attribute_names),
         "frames": {"total": int(frame_ids.max()) + 1,
                    "held_out": int(len(set(frame_ids[held])))},
         "instances": {"train": int((~held).sum()), "test": int(held.sum())},
         "sentences": {"train": int(train_s.sum()), "test": int(test_s.sum())},
         "settings": dataclasses.asdict(settings),
         "reference_settings": dataclasses.asdict(reference),
         "layers": {}}
  for name, emb in layers.items():
    scores, codes = probe_attributes(emb, table, train_s, test_s, settings)
    out["layers"][str(name)] = {
        kind: {"accuracy": scores[kind],
               "compounding": compounding(test_t, codes[kind]),
               "probe_then_solve": probe_then_solve(params, test_t,
                                                    codes[kind])}
        for kind in PROBES}
  return out


def tables(result: dict) -> dict:
  """{probe kind: {'columns', 'rows'}}: one row per layer, each attribute's
  accuracy, the compounding, probe-then-solve with every attribute probed
  and with each alone, and gold (a study record's tables)."""
  names = result["attributes"]
  columns = (["layer"] + names + ["compounding", "probe-then-solve"]
             + [f"only {n}" for n in names] + ["gold"])
  out = {}
  for kind in PROBES:
    rows = []
    for layer, row in result["layers"].items():
      r = row[kind]
      pts = r["probe_then_solve"]
      rows.append([layer] + [f"{r['accuracy'][n]:.3f}" for n in names]
                  + [f"{r['compounding']:.3f}", f"{pts['probed']:.3f}"]
                  + [f"{pts[f'only {n}']:.3f}" for n in names]
                  + [f"{pts['gold']:.3f}"])
    out[kind] = {"columns": columns, "rows": rows}
  return out


def markdown(result: dict, title: str = "") -> str:
  """The tables of `tables`, each under its probe kind, after a line
  saying what they were measured on."""
  lines = [f"### {title}" if title else "",
           f"{result['frames']['total']} frames, {result['frames']['held_out']}"
           f" held out; {result['instances']['train']} / "
           f"{result['instances']['test']} instances, "
           f"{result['sentences']['train']} / {result['sentences']['test']} "
           "sentences (train / test)", ""]
  for kind, table in tables(result).items():
    lines += [f"{kind} probes", "",
              "| " + " | ".join(table["columns"]) + " |",
              "| " + " | ".join("---" for _ in table["columns"]) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in table["rows"]]
    lines.append("")
  return "\n".join(lines).strip() + "\n"


def weakest_attribute(result: dict, layer: str, kind: str = "linear"
                      ) -> tuple[str, float]:
  """(attribute, probe-then-solve with it alone probed) that costs the
  most at `layer`."""
  pts = result["layers"][layer][kind]["probe_then_solve"]
  name = min(result["attributes"], key=lambda n: pts[f"only {n}"])
  return name, pts[f"only {name}"]
