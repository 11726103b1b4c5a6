"""Full-size scans of every spray/load config (both builders, every type,
every instance, so every split) for the lexical slips of
`data_builders.blm_spray_load.validate`, with each config's digest and
generation time; writes studies/records/spray_load_scans.json.

    PYTHONPATH=. python studies/spray_load_scans.py --out studies/records/spray_load_scans.json
"""

import argparse
import datetime
import json
import time

import hashlib


def repr_digest(xs) -> str:
  """As tests/builder_checks.repr_digest: sha256 over repr() of each instance."""
  h = hashlib.sha256()
  for x in xs:
    h.update(repr(x).encode())
  return h.hexdigest()


def _version(package: str) -> str:
  """The builder version the scanned instances come from."""
  import importlib
  module = importlib.import_module(
      f"data_builders.{package}.{package}_dataset_builder")
  return str(module.Builder.VERSION)


def configs():
  from data_builders.blm_spray_load import generate as g
  from data_builders.blm_spray_load_v0 import generate as g0
  for lt in g.LEXICAL_TYPES:
    for t in ("ALT-ATL", "ATL-ALT"):
      yield f"blm_spray_load/{t}_type_{lt}", lambda t=t, lt=lt: g.generate(t, lt)
    yield f"blm_spray_load/ctx_type_{lt}", lambda lt=lt: g.generate_ctx(lt)
    yield f"blm_spray_load/seq_type_{lt}", lambda lt=lt: g.generate_seq(lt)
    for t in ("Template1", "Template2"):
      yield (f"blm_spray_load_v0/{t}_type_{lt}",
             lambda t=t, lt=lt: g0.generate(t, lt))
    for c in (g0.CTX, g0.CTX_T2):
      yield (f"blm_spray_load_v0/{c}_type_{lt}",
             lambda c=c, lt=lt: g0.generate_ctx(lt, ctx=c))


def main():
  p = argparse.ArgumentParser()
  p.add_argument("--out", required=True)
  args = p.parse_args()
  from data_builders.blm_spray_load import lexicon, validate
  lex = lexicon.load_lexicon()
  rows = {}
  for name, make in configs():
    t = time.time()
    xs = make()
    gen_s = time.time() - t
    texts = {s.text for x in xs for s in (*x.context, *x.answers)}
    t = time.time()
    rows[name] = dict(
        instances=len(xs), distinct_sentences=len(texts),
        verb_form_stutter=len(validate.verb_form_stutters(texts, lex)),
        emitter_with_variant=len(validate.emitter_with_variants(texts, lex)),
        generate_s=round(gen_s, 1), scan_s=round(time.time() - t, 2),
        digest=repr_digest(xs))
    print(name, rows[name], flush=True)
  from blm_jax.study import records as study_records

  commit = study_records.head_commit()
  columns = ["config", "instances", "distinct sentences", "verb-form noun",
             "spurt with-variant from an emitter", "generate s", "scan s"]
  record = {
      "study": "full-size scans of every spray/load config for the lexical "
               "slips read in issue 34 (a noun equal to its verb's form; "
               "spurt's with-variant with a pipe or valve as agent)",
      "date": datetime.date.today().isoformat(), "commit": commit,
      "command": "PYTHONPATH=. python studies/spray_load_scans.py --out "
                 + args.out,
      "source": f"measured (blm_spray_load {_version('blm_spray_load')}, "
                f"blm_spray_load_v0 {_version('blm_spray_load_v0')}; times "
                "on the shared 2-core CPU)",
      "configs": rows,
      "tables": {"scans": {"columns": columns, "rows": [
          [n, str(r["instances"]), str(r["distinct_sentences"]),
           str(r["verb_form_stutter"]), str(r["emitter_with_variant"]),
           f"{r['generate_s']:.0f}", f"{r['scan_s']:.1f}"]
          for n, r in rows.items()]}}}
  with open(args.out, "w") as f:
    json.dump(record, f, indent=1)
    f.write("\n")

if __name__ == "__main__":
  main()
