"""Linguist's checks on realised COS+ sentences, independent of the realiser.

Each check reads the surface string (tokens, positions) and states one
grammatical fact the sentence must show; `generate` runs them on every
sentence it writes and raises on the first violation, and the tests run them
on built data. They check what a reader would: agreement, the Italian si and
participle agreement, German case, verb placement, separable particles and
auxiliary choice.
"""

from __future__ import annotations

from data_builders.blm_cos_plus.lexicon import NP
from data_builders.blm_cos_plus.realise import Material, Shape


def problems(text: str, shape: Shape, m: Material, tense: str,
             language: str) -> list[str]:
  out = []
  if not text[:1].isupper() or not text.endswith(".") or "  " in text:
    out.append("not a capitalised sentence ending in '.'")
  if text.endswith(" ."):
    out.append("space before the final stop")
  roles = {"Ag": m.agent, "Pa": m.patient}
  subj = roles[shape.subj]
  head = (subj if shape.gap == "subj" else roles[shape.obj]) if shape.gap \
      else None
  words = text[:-1].replace(",", " ,").split()
  out += {"en": _en, "it": _it, "de": _de}[language](
      words, shape, m, tense, subj, head)
  return out


def _has(words: list[str], phrase: str) -> int:
  """Token index where `phrase` starts (case-insensitive), or -1."""
  p = phrase.lower().split()
  low = [w.lower() for w in words]
  for i in range(len(low) - len(p) + 1):
    if low[i:i + len(p)] == p:
      return i
  return -1


def _en(words, shape, m, tense, subj, head):
  out = []
  v = m.verb
  verb_forms = {v.third, v.third_pl, v.participle}
  if tense == "pres":
    want = v.third if subj.number == "sg" else v.third_pl
    if want not in words:
      out.append(f"present verb does not agree with {subj.text!r}: "
                 f"{want!r} missing")
  else:
    aux = "has" if subj.number == "sg" else "have"
    i = _has(words, f"{aux} {v.participle}")
    if i < 0:
      out.append(f"perfect needs {aux!r} + {v.participle!r}")
  if head is not None:
    be = "is" if head.number == "sg" else "are"
    if _has(words, f"{be} {m.place}") < 0:
      out.append(f"matrix copula does not agree with the head "
                 f"{head.text!r}: expected {be!r}")
    rel = words[len(head.text.split())]
    if rel != ("who" if shape.gap == "subj" and shape.subj == "Ag"
               else "that"):
      out.append(f"relative pronoun {rel!r} after {head.text!r}")
  if not any(w in verb_forms for w in words):
    out.append("no form of the verb")
  return out


def _it(words, shape, m, tense, subj, head):
  out = []
  v = m.verb
  si = [i for i, w in enumerate(words) if w == "si"]
  if shape.transitive and si:
    out.append("si in a transitive clause")
  if not shape.transitive and len(si) != 1:
    out.append("the anticausative needs exactly one si")
  if tense == "perf":
    part = v.participle[:-1]
    forms = [w for w in words if w[:-1] == part and w[-1] in "oaie"]
    if len(forms) != 1:
      out.append(f"expected one participle of {v.lemma!r}")
    elif shape.transitive:
      if forms[0] != v.participle:
        out.append(f"avere + participle must not agree: {forms[0]!r}")
      j = words.index(forms[0])
      if words[j - 1] != ("ha" if subj.number == "sg" else "hanno"):
        out.append("transitive perfect needs ha/hanno agreeing with the "
                   "subject")
    else:
      want = {("m", "sg"): "o", ("f", "sg"): "a", ("m", "pl"): "i",
              ("f", "pl"): "e"}[subj.gender, subj.number]
      if not forms[0].endswith(want):
        out.append(f"participle {forms[0]!r} does not agree with "
                   f"{subj.text!r}")
      j = words.index(forms[0])
      if words[j - 2:j] != ["si", "è" if subj.number == "sg" else "sono"]:
        out.append("anticausative perfect needs si + è/sono")
  else:
    want = v.third if subj.number == "sg" else v.third_pl
    if want not in words:
      out.append(f"present verb does not agree with {subj.text!r}")
    elif not shape.transitive and words[words.index(want) - 1] != "si":
      out.append("si must precede the verb")
  if head is not None:
    be = "è" if head.number == "sg" else "sono"
    if _has(words, f"{be} {m.place}") < 0:
      out.append(f"matrix copula does not agree with {head.text!r}")
    if words[len(head.text.split())] != "che":
      out.append("the relative clause starts with che")
  return out


_NOM = {"m": "der", "f": "die", "n": "das", "": "die"}
_ACC = {"m": "den", "f": "die", "n": "das", "": "die"}


def _de(words, shape, m, tense, subj, head):
  out = []
  v = m.verb
  roles = {"Ag": m.agent, "Pa": m.patient}
  obj = roles[shape.obj] if shape.obj else None

  def np_at(np_: NP, case: str) -> int:
    noun = np_.accusative if case == "acc" and np_.accusative else np_.text
    art = (_ACC if case == "acc" else _NOM)[np_.gender]
    return _has(words, f"{art} {noun}")

  if np_at(subj, "nom") < 0 and not (shape.gap == "obj"):
    out.append(f"subject {subj.text!r} is not nominative")
  if shape.gap == "obj" and np_at(subj, "nom") < 0:
    out.append(f"relative-clause subject {subj.text!r} is not nominative")
  if obj is not None and shape.gap != "obj" and np_at(obj, "acc") < 0:
    out.append(f"object {obj.text!r} is not accusative")
  aux = "haben" if shape.transitive else v.aux
  finite_pres = v.third if subj.number == "sg" else v.third_pl
  finite_perf = {("haben", "sg"): "hat", ("haben", "pl"): "haben",
                 ("sein", "sg"): "ist", ("sein", "pl"): "sind"}[
                     aux, subj.number]
  if not shape.gap:
    # Verb second: right after the subject NP.
    if words[2] != (finite_pres if tense == "pres" else finite_perf):
      out.append(f"main clause is not verb-second: {words[2]!r}")
    last = v.prefix if tense == "pres" else v.participle
    if last and words[-1] != last:
      out.append(f"main clause must end with {last!r}")
    return out
  # head, rel, ... final, `,` be place
  commas = [i for i, w in enumerate(words) if w == ","]
  if len(commas) != 2:
    return out + ["a relative clause needs two commas"]
  rel = words[commas[0] + 1]
  want_rel = (_NOM if shape.gap == "subj" else _ACC)[head.gender]
  if rel != want_rel:
    out.append(f"relative pronoun {rel!r}, expected {want_rel!r}")
  if np_at(head, "nom") != 0:
    out.append(f"head {head.text!r} must open the sentence in the nominative")
  cluster = words[commas[1] - (1 if tense == "pres" else 2):commas[1]]
  want = ([v.prefix + finite_pres] if tense == "pres"
          else [v.participle, finite_perf])
  if cluster != want:
    out.append(f"relative clause is not verb-final: ends {cluster}, "
               f"expected {want}")
  be = "ist" if head.number == "sg" else "sind"
  if words[commas[1] + 1] != be:
    out.append(f"matrix verb does not agree with {head.text!r}")
  return out
