"""French noun phrases: number-marked articles, elision, de/à contractions.

le/la become l' before a vowel or a mute h (h-initial nouns must say which
in the lexicon's `elide` column); les is the plural of both genders; de + le
= du, de + les = des, à + le = au, à + les = aux (also at the end of complex
prepositions: près de + le = près du); de la / de l' stay apart.
"""

from __future__ import annotations

AND = "et"
_VOWELS = set("aeiouyàâäéèêëîïôöùûüœæ")
_CONTRACT = {("de", "le"): "du", ("de", "les"): "des",
             ("à", "le"): "au", ("à", "les"): "aux"}


def elides(noun, form: str) -> bool:
  first = form[0].lower()
  if first == "h":
    if not noun.elide:
      raise ValueError(f"French noun {noun.key!r} starts with h: say in the "
                       "lexicon's 'elide' column whether its h is mute (yes) "
                       "or aspirated (no)")
    return noun.elide == "yes"
  return first in _VOWELS


def article(noun, num: str) -> str:
  if num == "pl":
    return "les"
  if elides(noun, noun.form("sg")):
    return "l'"
  return "le" if noun.gender == "m" else "la"


def _attach(art: str, form: str) -> str:
  return f"{art}{form}" if art.endswith("'") else f"{art} {form}"


def np(noun, num: str) -> str:
  return _attach(article(noun, num), noun.form(num))


def pp(prep: str, noun, num: str) -> str:
  art = article(noun, num)
  head, _, last = prep.rpartition(" ")
  fused = _CONTRACT.get((last, art))
  if fused:
    return f"{head} {fused} {noun.form(num)}".strip()
  return f"{prep} {_attach(art, noun.form(num))}"


def coord(p1: str, noun, num: str, subject, subject_num: str) -> str:
  del p1, subject, subject_num
  return f"{AND} {np(noun, num)}"
