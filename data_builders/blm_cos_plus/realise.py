"""English, Italian and German realisers for the COS+ patterns.

A pattern (templates.py) is read as a clause: subject role, valency, object
role, optionally wrapped as a relative clause on its subject (REL-subj) or
object (REL-obj) inside a sentence `<head + relative clause> <be> <place>`
(002 Figure 3's "... is there"). Two tenses, one per instance: the present
and the present perfect, which is where the morphology shows:

- English: 3sg -s, has/have + participle, who (agent heads) / that.
- Italian: the anticausative takes si (il burro si scioglie); its perfect
  takes essere and the participle agrees with the subject (la cioccolata si
  è sciolta, le uova si sono rassodate); the transitive takes avere with an
  invariant participle, also when a relative `che` is its object (il burro
  che il cuoco ha sciolto: agreement there is archaic).
- German: case on articles and relative pronouns (der/den; weak nouns: den
  Praktikanten), verb-second main clauses with the separable particle at the
  end (taut ... auf), verb-final relative clauses set off by commas with the
  particle attached (auftaut) and the auxiliary last (geschmolzen ist), the
  transitive perfect with haben and the intransitive with the verb's own
  auxiliary (ist geschmolzen, hat gekocht).
"""

from __future__ import annotations

import dataclasses

from data_builders.blm_cos_plus.lexicon import NP, Verb
from data_builders.common.schema import Sentence
from data_builders.common.template import Pattern, realised

TENSES = ("pres", "perf")


@dataclasses.dataclass(frozen=True)
class Material:
  """The lexical choices for one sentence."""

  verb: Verb
  agent: NP
  patient: NP
  place: str


@dataclasses.dataclass(frozen=True)
class Shape:
  """A parsed pattern: the clause, and the relative gap if it is one."""

  text: str  # the pattern string
  subj: str  # Ag | Pa
  transitive: bool
  obj: str  # Ag | Pa | ""
  gap: str  # "" (main clause) | subj | obj


def parse(pat: Pattern) -> Shape:
  roles = pat.roles()
  args = [s.get("arg") for s in pat.slots if s.role in ("NP", "OBJ")]
  tr = pat.slot("V").get("val") == "tr"
  if roles in (("NP", "V"), ("NP", "V", "OBJ")):
    return Shape(str(pat), args[0], tr, args[1] if tr else "", "")
  gap = pat.slot("REL").get("gap")
  if gap == "subj" and roles[:3] == ("NP", "REL", "V"):
    return Shape(str(pat), args[0], tr, args[1] if tr else "", "subj")
  if gap == "obj" and roles[:4] == ("NP", "REL", "NP", "V") and tr:
    return Shape(str(pat), args[1], tr, args[0], "obj")
  raise ValueError(f"no realisation for pattern {pat}")


def realise(shape: Shape, m: Material, tense: str, language: str) -> Sentence:
  if tense not in TENSES:
    raise ValueError(f"unknown tense {tense!r}; known: {TENSES}")
  fn = {"en": _english, "it": _italian, "de": _german}[language]
  chunks = fn(shape, m, tense)
  chunks[0] = chunks[0][:1].upper() + chunks[0][1:]
  text = " ".join(chunks[:-1]) + chunks[-1]
  return realised(text, shape.text, chunks)


def _roles(m: Material) -> dict[str, NP]:
  return {"Ag": m.agent, "Pa": m.patient}


# --- English ---------------------------------------------------------------


def _en_verb(v: Verb, subj: NP, tense: str) -> str:
  sg = subj.number == "sg"
  if tense == "pres":
    return v.third if sg else v.third_pl
  return f"{'has' if sg else 'have'} {v.participle}"


def _english(s: Shape, m: Material, tense: str) -> list[str]:
  r = _roles(m)
  subj, obj = r[s.subj], (r[s.obj] if s.obj else None)
  vp = [_en_verb(m.verb, subj, tense)] + ([obj.text] if s.obj else [])
  if not s.gap:
    return [subj.text, *vp, "."]
  head = subj if s.gap == "subj" else obj
  be = "is" if head.number == "sg" else "are"
  if s.gap == "subj":
    rel = "who" if s.subj == "Ag" else "that"
    return [head.text, rel, *vp, be, m.place, "."]
  return [head.text, "that", subj.text, vp[0], be, m.place, "."]


# --- Italian ---------------------------------------------------------------


def it_participle(ms_form: str, np_: NP) -> str:
  """sciolto -> sciolto/sciolta/sciolti/sciolte, agreeing with `np_`."""
  return ms_form[:-1] + {("m", "sg"): "o", ("f", "sg"): "a",
                         ("m", "pl"): "i", ("f", "pl"): "e"}[
                             (np_.gender, np_.number)]


def _it_verb(v: Verb, subj: NP, tense: str, transitive: bool) -> str:
  sg = subj.number == "sg"
  if tense == "pres":
    finite = v.third if sg else v.third_pl
    return finite if transitive else f"si {finite}"
  if transitive:
    return f"{'ha' if sg else 'hanno'} {v.participle}"
  return f"si {'è' if sg else 'sono'} {it_participle(v.participle, subj)}"


def _italian(s: Shape, m: Material, tense: str) -> list[str]:
  r = _roles(m)
  subj, obj = r[s.subj], (r[s.obj] if s.obj else None)
  verb = _it_verb(m.verb, subj, tense, s.transitive)
  if not s.gap:
    return [subj.text, verb, *([obj.text] if obj else []), "."]
  head = subj if s.gap == "subj" else obj
  be = "è" if head.number == "sg" else "sono"
  if s.gap == "subj":
    return [head.text, "che", verb, *([obj.text] if obj else []), be,
            m.place, "."]
  return [head.text, "che", subj.text, verb, be, m.place, "."]


# --- German ----------------------------------------------------------------

_DE_ARTICLE = {  # (gender or pl, case) -> definite article / relative pronoun
    ("m", "nom"): "der", ("m", "acc"): "den", ("f", "nom"): "die",
    ("f", "acc"): "die", ("n", "nom"): "das", ("n", "acc"): "das",
    ("pl", "nom"): "die", ("pl", "acc"): "die",
}
_DE_AUX = {("haben", "sg"): "hat", ("haben", "pl"): "haben",
           ("sein", "sg"): "ist", ("sein", "pl"): "sind"}


def de_article(np_: NP, case: str) -> str:
  return _DE_ARTICLE[np_.gender or "pl", case]


def de_np(np_: NP, case: str) -> str:
  noun = np_.accusative if case == "acc" and np_.accusative else np_.text
  return f"{de_article(np_, case)} {noun}"


def _de_parts(v: Verb, subj: NP, tense: str, transitive: bool):
  """(finite, rest-of-cluster) in verb-second order."""
  num = subj.number
  if tense == "pres":
    return (v.third if num == "sg" else v.third_pl), v.prefix
  aux = "haben" if transitive else v.aux
  return _DE_AUX[aux, num], v.participle


def _german(s: Shape, m: Material, tense: str) -> list[str]:
  r = _roles(m)
  subj, obj = r[s.subj], (r[s.obj] if s.obj else None)
  finite, rest = _de_parts(m.verb, subj, tense, s.transitive)
  if not s.gap:  # Verb second; the particle or participle closes the clause.
    tail = [de_np(obj, "acc")] if obj else []
    return [de_np(subj, "nom"), finite, *tail, *([rest] if rest else []), "."]
  # Verb-final: prefix+finite (auftaut) or participle + auxiliary.
  final = (rest + finite) if tense == "pres" else f"{rest} {finite}"
  head = subj if s.gap == "subj" else obj
  be = "ist" if head.number == "sg" else "sind"
  if s.gap == "subj":
    inner = [de_article(head, "nom"), *([de_np(obj, "acc")] if obj else []),
             final + ","]
  else:
    inner = [de_article(head, "acc"), de_np(subj, "nom"), final + ","]
  return [de_np(head, "nom") + ",", *inner, be, m.place, "."]
