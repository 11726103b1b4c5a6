"""Training instances per COS+ config with a role-error candidate (`Ag
Verb`, `Pa Verb Ag`) whose verb this checkout's verbs.tsv flags
(`role_error` od or reading), and German ones with an intransitive in
haben; the generator may be another checkout's.

  python studies/cos_plus_role_error_counts.py [--generator_root=/work/main]

Prints one line per config of 002's design: instances in the train split;
instances with an `Ag Verb` candidate whose verb is flagged od, or
reading; instances with a `Pa Verb Ag` candidate whose verb is flagged
reading (an upper bound: the reading of some verbs concerns `Ag Verb`
only); German instances with `hat`/`haben` in an intransitive sentence.
With this checkout's generator every count is 0.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _flags() -> dict[tuple[str, str], str]:
  """(language, lemma) -> role_error, read from this checkout's TSVs."""
  out = {}
  for lang in ("en", "it", "de"):
    path = os.path.join(ROOT, "data_builders", "blm_cos_plus", "lexicon",
                        lang, "verbs.tsv")
    header = None
    for line in open(path, encoding="utf-8"):
      if line.startswith("#") or not line.strip():
        continue
      cells = line.rstrip("\n").split("\t")
      if header is None:
        header = cells
        continue
      row = dict(zip(header, cells))
      out[lang, row["verb"].replace("|", "")] = row["role_error"]
  return out


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--generator_root", default=ROOT)
  a = p.parse_args(argv)
  flags = _flags()
  sys.path.insert(0, a.generator_root)
  from data_builders.blm_cos_plus import blm_cos_plus_dataset_builder as cb
  from data_builders.blm_cos_plus import generate as g
  from data_builders.common import splits
  for v in g.VARIANTS:
    lang = g.language_of(v)
    # Surface forms to lemmas, as
    # tests/data_builders/test_cos_plus_natural_answers.py does; its own
    # copy, for a generator that predates this checkout.
    forms: dict[str, set[str]] = {}
    for verb in g.lexicon_for(v).verbs:
      fs = {verb.third, verb.third_pl, verb.participle, verb.past, verb.lemma}
      if lang == "it":
        fs |= {verb.participle[:-1] + e for e in "aie"}
      for f in fs - {""}:
        forms.setdefault(f, set()).add(verb.lemma)
    for d in ("T2I", "I2T"):
      for lx in g.LEXICALITIES:
        xs = g.generate(v, d, lx)
        train = splits.assign_splits(xs, 0, cb.Builder.group_of,
                                     cb.SPLIT_FRACTIONS)["train"]
        counts, haben = collections.Counter(), 0
        for x in train:
          kinds = set()
          for s in x.answers:
            tag = {"NP-Ag V-intr": "Ag Verb",
                   "NP-Pa V-tr OBJ-Ag": "Pa Verb Ag"}.get(s.pattern)
            if tag:
              words = " ".join(s.chunks[1:]).split()
              kinds |= {(tag, flags[lang, m]) for w in words
                        for m in forms.get(w, ())}
          counts.update(kinds - {("Ag Verb", "no"), ("Pa Verb Ag", "no"),
                                 ("Pa Verb Ag", "od")})
          haben += lang == "de" and any(
              "V-intr" in s.pattern and {"hat", "haben"} & set(s.text.split())
              for s in [*x.context, *x.answers])
        print(f"{g.config_name(v, d, lx)}: {len(train)} train, Ag Verb od "
              f"{counts['Ag Verb', 'od']}, Ag Verb reading "
              f"{counts['Ag Verb', 'reading']}, Pa Verb Ag reading "
              f"{counts['Pa Verb Ag', 'reading']}"
              + (f", haben intransitive {haben}" if lang == "de" else ""),
              flush=True)


if __name__ == "__main__":
  main()
