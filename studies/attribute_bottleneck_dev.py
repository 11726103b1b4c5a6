"""Dev diagnosis of the attribute-bottleneck solver on one `_seq` design.

One cell (one seed, train type I, dev of the same sample), trained alone
with the project's `Solver` (no grid), so each setting costs a few minutes
on the CPU. Per epoch it measures the dev accuracy and, per attribute, how
often slot j's argmax on the dev context sentences is attribute j's value
(slot accuracy: does the bottleneck read the attributes?). With
`--input=gold` the sentence vectors are the one-hot attributes (the
`gold_attributes` control's table): does the relation part learn the rule
when the slots can be read exactly?

  python studies/attribute_bottleneck_dev.py --name=default \
      --record=studies/records/attribute_bottleneck_dev_agreement_en_seq.json \
      [--set=model.slots=6 --set=train.learning_rate=3e-3 ...]

Every run is added (by name) to the one record; a name already there is
skipped unless --rerun. Test splits are never read.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import subprocess
import sys
import time

from absl import app, flags
import jax
import jax.numpy as jnp
import numpy as np

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _HERE not in sys.path:
  sys.path.insert(0, _HERE)

from blm_jax import models  # noqa: E402
from blm_jax.data import input_pipeline  # noqa: E402
from blm_jax.embedding import sources as embedding_sources  # noqa: E402
from blm_jax.embedding.spec import EncoderSettings  # noqa: E402
from blm_jax.training import trainer, variants  # noqa: E402
from blm_jax.training.optimizers import create_optimizer  # noqa: E402
from blm_jax.training.solver import (Solver, SplitIndex, eval_rows,  # noqa: E402
                                     split_accuracy)
from configs import attribute_bottleneck as config_file  # noqa: E402

FLAGS = flags.FLAGS


def _define_flags():
  """At run time only, so that tests can import the helpers."""
  flags.DEFINE_string("name", None, "the setting's name in the record")
  flags.DEFINE_string("record", None, "the JSON record runs are added to")
  flags.DEFINE_string("dataset", "agreement_en_seq", "the design (short name)")
  flags.DEFINE_integer("num_train", 1500, "instances sampled: 80% train, 20% dev")
  flags.DEFINE_integer("epochs", 40, "epochs")
  flags.DEFINE_integer("seed", 0, "the cell's seed (init and batch order)")
  flags.DEFINE_enum("input", "encoder", ["encoder", "gold"],
                    "sentence vectors: the encoder's or one-hot attributes")
  flags.DEFINE_multi_string("set", [], "config overrides section.key=value")
  flags.DEFINE_bool("rerun", False, "train again a name the record has")
  flags.mark_flags_as_required(["name", "record"])


def _override(config, item: str) -> None:
  key, _, value = item.partition("=")
  section, _, field = key.partition(".")
  if not value or section not in config or field not in config[section]:
    raise SystemExit(f"--set={item!r}: expected section.key=value with a "
                     "key of configs/attribute_bottleneck.py")
  old = config[section][field]
  if isinstance(old, tuple):
    config[section][field] = tuple(int(v) for v in value.split(",") if v)
  elif isinstance(old, bool):
    if value.lower() not in ("1", "true", "0", "false"):
      raise SystemExit(f"--set={item!r}: {key} is a boolean (true/false)")
    config[section][field] = value.lower() in ("1", "true")
  else:
    config[section][field] = type(old)(value)


def _slot_accuracy(latent, split: SplitIndex, n: int, slots: int,
                   slot_size: int, names) -> dict[str, float]:
  """Per attribute j: slot j's argmax against attribute j on the context
  sentences where it is present."""
  c = split.context.shape[1]
  values = np.asarray(latent)[:n].reshape(n, c, slots, slot_size)
  targets = np.asarray(split.context_attributes)[:n]
  out = {}
  for j, name in enumerate(names):
    present = targets[..., j] >= 0
    guess = values[..., j, :].argmax(-1)
    out[name] = float((guess == targets[..., j])[present].mean())
  return out


def run(config, input_kind: str, log) -> dict:
  # The gold table replaces the vectors: nothing to embed (width 384, the
  # one-hot attributes zero-padded to it).
  embed_fn = (embedding_sources.embed_fn(EncoderSettings(**config.encoder))
              if input_kind == "encoder" else
              lambda sentences: np.zeros((len(sentences), 384), np.float32))
  data = input_pipeline.load(config.data, embed_fn,
                             seeds=tuple(int(s) for s in config.grid.seeds))
  trainer._check_compatible(config, data)
  emb = np.asarray(data.embeddings, np.float32)
  if input_kind == "gold":
    emb = variants.gold_attribute_table(data.table, emb.shape[1])
  model = models.create_model(config.model, embed_dim=emb.shape[1],
                              num_context=data.num_context,
                              score=config.train.score, loss_cfg=config.loss)
  train_t, dev_t = data.train["I"], data.dev["I"]
  solver = Solver(
      model=model, tx=create_optimizer(config.train),
      score=config.train.score, answer_reduction=config.loss.answer_reduction,
      loss_weights=trainer.loss_weights(config, emb.shape[1]),
      batch_size=config.train.batch_size,
      steps_per_epoch=max(1, math.ceil(train_t.num_instances
                                       / config.train.batch_size)),
      select_by=config.train.select_by, eval_chunk=config.train.eval_chunk)
  reads = True  # slot accuracy needs the attributes even when aux is off
  train = SplitIndex.from_table(train_t, attributes=reads)
  dev = SplitIndex.from_table(
      dev_t, eval_rows(dev_t.num_instances, config.train.eval_chunk),
      attributes=reads)
  if not solver.reads_attributes:  # the model must not receive them
    strip = lambda s: s.replace(context_attributes=None,
                                answer_attributes=None)
    train_in, dev_in = strip(train), strip(dev)
  else:
    train_in, dev_in = train, dev
  emb_d = jnp.asarray(emb)
  key = jax.random.key(int(config.grid.seeds[0]))
  from blm_jax.training.solver import gather
  state = solver.init(key, gather(emb_d, train_in, jnp.arange(2)))
  epoch_fn = jax.jit(solver.train_epoch)
  eval_fn = jax.jit(solver.evaluate)
  names = tuple(data.table.attribute_names)
  history = []
  t0 = time.time()
  for epoch in range(int(config.train.epochs)):
    state, m = epoch_fn(state, key, jnp.int32(epoch), emb_d, train_in, dev_in)
    row = {"epoch": epoch + 1, "dev_accuracy": float(m["dev_accuracy"]),
           "train_loss": float(jnp.mean(m["train"]["loss"]))}
    for k, v in m["train"].items():
      if k != "loss":
        row[f"train_{k}"] = float(jnp.mean(v))
    if epoch % 5 == 4 or epoch == config.train.epochs - 1:
      out = eval_fn(state.params, emb_d, dev_in)
      row["slot_accuracy"] = _slot_accuracy(
          out["latent"], dev, dev_t.num_instances, config.model.slots,
          config.model.slot_size, names)
    history.append(row)
    log(json.dumps(row))
  best = max(history, key=lambda r: r["dev_accuracy"])
  return {"attribute_names": list(names),
          "dev_accuracy_best": best["dev_accuracy"],
          "best_epoch": best["epoch"],
          "dev_accuracy_last": history[-1]["dev_accuracy"],
          "slot_accuracy_last": history[-1].get("slot_accuracy"),
          "train_instances": train_t.num_instances,
          "dev_instances": dev_t.num_instances,
          "seconds": round(time.time() - t0, 1), "history": history}


def runs_table(runs: dict, names: tuple[str, ...]) -> dict:
  """The record's table of runs (`records tables` renders it); `names`:
  the attributes in the schema's order."""
  columns = ["setting", "input",
             "changes from the library defaults with loss.aux_attribute=1",
             "train instances", "epochs", "dev acc best (epoch)",
             "dev acc last",
             f"slot accuracy at the last epoch ({' / '.join(names)})"]
  rows = []
  for name, r in runs.items():
    slots = r.get("slot_accuracy_last") or {}
    rows.append([
        name, r["input"], " ".join(r["overrides"]) or "-",
        str(r["train_instances"]), str(r["epochs"]),
        f"{r['dev_accuracy_best']:.3f} ({r['best_epoch']})",
        f"{r['dev_accuracy_last']:.3f}",
        " / ".join(f"{slots[n]:.2f}" for n in names if n in slots) or "-"])
  return {"columns": columns, "rows": rows}


def _read(path: str) -> dict:
  if not os.path.exists(path):
    return {}
  with open(path) as f:
    return json.load(f)


def main(argv):
  del argv
  if FLAGS.name in _read(FLAGS.record).get("runs", {}) and not FLAGS.rerun:
    print(f"{FLAGS.name}: in {FLAGS.record} already (--rerun trains again)")
    return
  # The library defaults with attribute targets of weight 1 (the `aux`
  # variant's other choices are among the overrides measured here).
  config = config_file.get_config(f"dataset={FLAGS.dataset}")
  config.loss.aux_attribute = 1.0
  config.data.train_types = ("I",)
  config.data.test_types = ("I",)
  config.data.num_train = FLAGS.num_train
  config.data.max_test = 1
  config.train.epochs = FLAGS.epochs
  config.grid.seeds = (FLAGS.seed,)
  for item in FLAGS.set:
    _override(config, item)
  result = run(config, FLAGS.input, lambda s: print(FLAGS.name, s, flush=True))
  commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, cwd=_HERE).stdout
  entry = {
      "command": " ".join(["python", "studies/attribute_bottleneck_dev.py",
                           *sys.argv[1:]]),
      "commit": commit.strip(), "input": FLAGS.input,
      "overrides": list(FLAGS.set), "seed": FLAGS.seed,
      "epochs": FLAGS.epochs, "num_train": FLAGS.num_train,
      "encoder": config.encoder.to_dict(),
      "model": config.model.to_dict(), "loss": config.loss.to_dict(),
      "learning_rate": config.train.learning_rate, **result}
  # Runs of several processes share the record: read it again under a lock.
  with open(FLAGS.record + ".lock", "w") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    record = _read(FLAGS.record)
    record.setdefault("runs", {})[FLAGS.name] = entry
    record.update(
        dataset=FLAGS.dataset, source="measured",
        study=("the attribute-bottleneck solver on dev, one cell (seed, "
               "type I), with the slots' accuracy per attribute "
               "(studies/attribute_bottleneck_dev.py)"),
        date=time.strftime("%Y-%m-%d", time.gmtime()),
        # One record, many runs: each run's own command and commit are in
        # `runs`; these say so for the record as a whole.
        command="python studies/attribute_bottleneck_dev.py --name=N "
                "... (each run's command: runs.N.command)",
        commit=",".join(sorted({r["commit"] for r in record["runs"].values()
                                if r.get("commit")})),
        attribute_names=list(result["attribute_names"]),
        tables={"runs": runs_table(record["runs"],
                                   tuple(result["attribute_names"]))})
    tmp = FLAGS.record + ".tmp"
    with open(tmp, "w") as f:
      json.dump(record, f, indent=1, sort_keys=True)
    os.replace(tmp, FLAGS.record)
  print(f"{FLAGS.name}: dev best {result['dev_accuracy_best']:.3f} (epoch "
        f"{result['best_epoch']}), slots {result['slot_accuracy_last']}")


if __name__ == "__main__":
  _define_flags()
  app.run(main)
