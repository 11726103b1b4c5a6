"""English and Italian realisers for the CoS / OD patterns.

A realiser turns a pattern (templates.py) plus one verb's lexical material and
a tense/modal frame into a `Sentence` that carries its pattern and chunks
(subject, verb group, each following constituent, final stop).

English: subject-verb agreement on be/have/3sg, irregular participles from the
lexicon. Italian (002 Figure 8's variety): present, imperfect, simple past,
future, present perfect and the modals potere/dovere; passives with essere or
venire (venire only in simple tenses, as Italian allows); past participles
agree in gender and number with the subject in passives and with the `si`
intransitive (il burro si è sciolto / le candele si sono sciolte); `da` fuses
with the definite article (dal, dallo, dalla, dall', dai, dagli, dalle).
"""

from __future__ import annotations

import dataclasses

from data_builders.blm_cos_od.lexicon import NP, VerbEntry
from data_builders.common.schema import Sentence
from data_builders.common.template import Pattern, realised

# Tense/modal frames per language, in the order a seed draws from.
FRAMES = {
    "en": ("pres", "past", "will", "can", "could", "perf"),
    "it": ("pres", "impf", "rem", "fut", "perf", "può", "deve"),
}


# Frames a time-point adverbial (at midnight, by noon, after the party) cannot
# take. The English present perfect relates a past event to the present and
# rejects adverbials that fix it at a definite past time (*The gate has
# closed at midnight); the Italian passato prossimo is also a perfective
# past and takes them (Il cancello si è chiuso a mezzanotte).
INCOMPATIBLE_FRAMES = {"en": ("perf",), "it": ()}


def frames_for(language: str, time_point: bool) -> tuple[str, ...]:
  """The frames an adverbial with this `time_point` mark may take."""
  bad = INCOMPATIBLE_FRAMES[language] if time_point else ()
  return tuple(f for f in FRAMES[language] if f not in bad)


# Italian tenses whose *essere* passive also reads as a resulting state ("Il
# vaso è rotto": the vase is broken); *venire* keeps the event ("Il vaso
# viene rotto"). The `_seq` design takes venire there.
STATIVE_ESSERE_TENSES = ("pres", "impf")


@dataclasses.dataclass(frozen=True)
class Frame:
  """A tense or modal; `venire` picks the Italian passive auxiliary."""

  tense: str
  venire: bool = False


@dataclasses.dataclass(frozen=True)
class Material:
  """The lexical choices for one sentence."""

  verb: VerbEntry
  agent: NP
  theme: NP
  p_np: str
  by_np: str


def realise(pat: Pattern, m: Material, frame: Frame,
            language: str) -> Sentence:
  return realise_compiled(compiled(pat), m, frame, language)


def realise_compiled(shape, m: Material, frame: Frame,
                     language: str) -> Sentence:
  """`realise` for a pattern already passed through `compiled` (faster)."""
  if frame.tense not in FRAMES[language]:
    raise ValueError(f"unknown {language} frame {frame.tense!r}")
  pat_str, subj_role, voice, si, rest = shape
  roles = {"Agent": m.agent, "Theme": m.theme}
  subj = roles[subj_role]
  if language == "en":
    if si:
      raise ValueError(f"English has no si: {pat_str}")
    verb = _en_verb(m.verb, voice, subj, frame)
  else:
    verb = _it_verb(m.verb, voice, si, subj, frame)
  chunks = [_capitalise(subj.text), verb]
  for kind, arg in rest:
    if kind == "OBJ":
      chunks.append(roles[arg].text)
    elif kind == "BY":
      np = roles[arg]
      if voice == "act":  # by + argument of an active clause (rule E)
        np = m.verb.not_landmark(np, arg)
      chunks.append(_by(np.text, language))
    elif kind == "pNP":
      chunks.append(m.p_np)
    else:
      chunks.append(m.by_np)
  chunks.append(".")
  return realised(" ".join(chunks[:-1]) + ".", pat_str, chunks)


def compiled(pat: Pattern):
  """(pattern string, subject role, voice, si, following slots) of `pat`."""
  if pat.roles()[:2] != ("NP", "V"):
    raise ValueError(f"pattern {pat} does not start with subject and verb")
  rest = []
  for s in pat.slots[2:]:
    if s.role not in ("OBJ", "BY", "pNP", "byNP"):
      raise ValueError(f"no realisation for slot {s} in {pat}")
    rest.append((s.role, s.get("arg")))
  v = pat.slot("V")
  return (str(pat), pat.slot("NP").get("arg"), v.get("voice"),
          bool(v.get("si")), tuple(rest))


def _capitalise(s: str) -> str:
  return s[:1].upper() + s[1:]


def _by(np_text: str, language: str) -> str:
  if language == "en":
    return "by " + np_text
  return da(np_text)


_DA = {"il": "dal", "lo": "dallo", "la": "dalla", "i": "dai", "gli": "dagli",
       "le": "dalle"}


def da(np_text: str) -> str:
  """Italian `da` + NP with the article fused (da + il = dal, ...)."""
  first, _, rest = np_text.partition(" ")
  if first in _DA and rest:
    return f"{_DA[first]} {rest}"
  if np_text.startswith("l'"):
    return "dall'" + np_text[2:]
  return "da " + np_text


# --- English ---------------------------------------------------------------

_EN_BE = {"pres": ("is", "are"), "past": ("was", "were")}


def _en_verb(entry: VerbEntry, voice: str, subj: NP, frame: Frame) -> str:
  base, third, past, part = entry.forms
  sg = subj.number == "sg"
  t = frame.tense
  if voice == "act":
    return {
        "pres": third if sg else base,
        "past": past,
        "will": f"will {base}",
        "can": f"can {base}",
        "could": f"could {base}",
        "perf": f"{'has' if sg else 'have'} {part}",
    }[t]
  if t in _EN_BE:
    return f"{_EN_BE[t][0 if sg else 1]} {part}"
  return {
      "will": f"will be {part}",
      "can": f"can be {part}",
      "could": f"could be {part}",
      "perf": f"{'has' if sg else 'have'} been {part}",
  }[t]


# --- Italian ---------------------------------------------------------------

_IT_TENSE_INDEX = {"pres": 0, "impf": 2, "rem": 4, "fut": 6}
_ESSERE = {"pres": ("è", "sono"), "impf": ("era", "erano"),
           "rem": ("fu", "furono"), "fut": ("sarà", "saranno")}
_VENIRE = {"pres": ("viene", "vengono"), "impf": ("veniva", "venivano"),
           "rem": ("venne", "vennero"), "fut": ("verrà", "verranno")}
_MODAL = {"può": ("può", "possono"), "deve": ("deve", "devono")}


def participle(ms_form: str, subj: NP) -> str:
  """rotto -> rotto/rotta/rotti/rotte, agreeing with `subj`."""
  if not ms_form.endswith("o"):
    raise ValueError(f"participle {ms_form!r} does not end in -o")
  stem = ms_form[:-1]
  return stem + {("m", "sg"): "o", ("f", "sg"): "a", ("m", "pl"): "i",
                 ("f", "pl"): "e"}[(subj.gender, subj.number)]


def _reflexive_infinitive(inf: str) -> str:
  """sciogliere -> sciogliersi, aprire -> aprirsi, bere -> bersi."""
  return inf[:-1] + "si"


def _it_verb(entry: VerbEntry, voice: str, si: bool, subj: NP,
             frame: Frame) -> str:
  f = entry.forms
  n = 0 if subj.number == "sg" else 1
  t = frame.tense
  part = participle(f[8], subj)
  if voice == "act":
    if t in _IT_TENSE_INDEX:
      finite = f[_IT_TENSE_INDEX[t] + n]
      return f"si {finite}" if si else finite
    if t == "perf":
      if si:  # Pronominal verbs take essere, with agreement.
        return f"si {_ESSERE['pres'][n]} {part}"
      return f"{('ha', 'hanno')[n]} {f[8]}"
    inf = _reflexive_infinitive(entry.lemma) if si else entry.lemma
    return f"{_MODAL[t][n]} {inf}"
  if t in _IT_TENSE_INDEX:
    aux = (_VENIRE if frame.venire else _ESSERE)[t][n]
    return f"{aux} {part}"
  if t == "perf":
    stato = participle("stato", subj)
    return f"{_ESSERE['pres'][n]} {stato} {part}"
  return f"{_MODAL[t][n]} essere {part}"
