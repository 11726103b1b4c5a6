"""Italian noun phrases: articles by gender, number and onset; contractions.

Masculine il/i, lo/gli (before s + consonant, z, gn, ps, pn, x, y), l'/gli
(before a vowel); feminine la/le, l'/le. di, a, da, in, su fuse with the
article (di + il = del, in + gli = negli, a + l' = all', su + la = sulla),
also at the end of complex prepositions (vicino a + il = vicino al); other
prepositions (con, per, tra, fra, sopra, ...) stay apart.
"""

from __future__ import annotations

AND = "e"
_VOWELS = set("aeiouàèéìòù")
_FUSING = {"di": "de", "a": "a", "da": "da", "in": "ne", "su": "su"}
_FUSED_ARTICLE = {"il": "l", "lo": "llo", "l'": "ll'", "la": "lla",
                  "i": "i", "gli": "gli", "le": "lle"}


def _lo_onset(form: str) -> bool:
  f = form.lower()
  return ((f[0] == "s" and len(f) > 1 and f[1] not in _VOWELS)
          or f[0] in "zxy" or f[:2] in ("gn", "ps", "pn"))


def article(noun, num: str) -> str:
  form = noun.form(num)
  vowel = form[0].lower() in _VOWELS
  if noun.gender == "f":
    return "le" if num == "pl" else ("l'" if vowel else "la")
  if num == "pl":
    return "gli" if vowel or _lo_onset(form) else "i"
  return "l'" if vowel else ("lo" if _lo_onset(form) else "il")


def _attach(art: str, form: str) -> str:
  return f"{art}{form}" if art.endswith("'") else f"{art} {form}"


def np(noun, num: str) -> str:
  return _attach(article(noun, num), noun.form(num))


def pp(prep: str, noun, num: str) -> str:
  art = article(noun, num)
  head, _, last = prep.rpartition(" ")
  if last in _FUSING:
    fused = _FUSING[last] + _FUSED_ARTICLE[art]
    return f"{head} {_attach(fused, noun.form(num))}".strip()
  return f"{prep} {_attach(art, noun.form(num))}"


def coord(p1: str, noun, num: str, subject, subject_num: str) -> str:
  del p1, subject, subject_num
  return f"{AND} {np(noun, num)}"
