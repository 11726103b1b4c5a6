"""Hebrew verb forms of strong triliteral roots in four binyanim, unpointed.

002 sec. 4.3 (Figure 11): Paal (basic, labile), Nifal (passive/middle), Hifil
(causative active) and Hufal (causative passive). Forms are written in the
standard unpointed plene spelling (ktiv male) that UD Hebrew uses; a root is
three consonants C1 C2 C3:

              past 3ms/3fs/3pl      present ms/fs/mp/fp            future 3ms/3fs/3mp
    PAAL      C1C2C3  +ה +ו         C1וC2C3 +ת +ים +ות             יC1C2וC3 תC1C2וC3 יC1C2C3ו
    NIFAL     נC1C2C3 +ה +ו         נC1C2C3 +ת +ים +ות             ייC1C2C3 תיC1C2C3 ייC1C2C3ו
    HIFIL     הC1C2יC3 +ה +ו        מC1C2יC3 +ה +ים +ות            יC1C2יC3 תC1C2יC3 יC1C2יC3ו
    HUFAL     הוC1C2C3 +ה +ו        מוC1C2C3 +ת +ים +ות            יוC1C2C3 תוC1C2C3 יוC1C2C3ו

Paal future has the o-vowel (יכתוב) or the a-vowel (ילבש, ישמע) by root:
a lexical fact the lexicon gives. Word-final כ מ נ פ צ take their final
forms (ך ם ן ף ץ). Only strong roots are supported (`check_root` says why a
root is not): weak letters and first- or second-radical gutturals change the
spelling in ways these patterns do not cover.
"""

from __future__ import annotations

BINYANIM = ("PAAL", "NIFAL", "HIFIL", "HUFAL")
# (tense, person/gender/number), in a fixed order.
INFLECTIONS = (
    ("past", "3ms"), ("past", "3fs"), ("past", "3p"),
    ("present", "ms"), ("present", "fs"), ("present", "mp"),
    ("present", "fp"),
    ("future", "3ms"), ("future", "3fs"), ("future", "3mp"),
)
PAAL_FUTURE_VOWELS = ("o", "a")

LETTERS = "אבגדהוזחטיכלמנסעפצקרשת"
FINAL = {"כ": "ך", "מ": "ם", "נ": "ן", "פ": "ף", "צ": "ץ"}
NON_FINAL = {v: k for k, v in FINAL.items()}
GUTTURALS = "אהחע"
WEAK = "ויא"


def check_root(root: str) -> str | None:
  """None if `root` is a strong root these patterns spell right, else why."""
  if len(root) != 3:
    return f"a root has three consonants, {root!r} has {len(root)}"
  bad = [c for c in root if c not in LETTERS]
  if bad:
    return (f"{bad} are not Hebrew letters in their non-final form (write "
            "final letters as כ מ נ פ צ)")
  c1, c2, c3 = root
  if c1 in GUTTURALS + WEAK + "נ":
    return f"first radical {c1!r} (guttural, weak or assimilating nun)"
  if c2 in GUTTURALS + WEAK:
    return f"second radical {c2!r} (guttural or weak)"
  if c3 in WEAK + "ה":
    return f"third radical {c3!r} (weak)"
  if c2 == c3:
    return "second and third radicals are the same (geminate)"
  return None


def _finalise(word: str) -> str:
  return word[:-1] + FINAL.get(word[-1], word[-1])


def form(root: str, binyan: str, tense: str, pgn: str,
         paal_future: str = "o") -> str:
  """The inflected verb, e.g. form('כתב', 'HUFAL', 'past', '3fs') = 'הוכתבה'."""
  why = check_root(root)
  if why:
    raise ValueError(f"root {root!r}: {why}")
  if binyan not in BINYANIM:
    raise ValueError(f"unknown binyan {binyan!r}; known: {BINYANIM}")
  if (tense, pgn) not in INFLECTIONS:
    raise ValueError(f"unknown inflection {tense} {pgn}; known: "
                     f"{INFLECTIONS}")
  if paal_future not in PAAL_FUTURE_VOWELS:
    raise ValueError(f"Paal future vowel {paal_future!r}, expected one of "
                     f"{PAAL_FUTURE_VOWELS}")
  c1, c2, c3 = root
  if tense == "past":
    stem = {"PAAL": c1 + c2 + c3, "NIFAL": "נ" + c1 + c2 + c3,
            "HIFIL": "ה" + c1 + c2 + "י" + c3,
            "HUFAL": "הו" + c1 + c2 + c3}[binyan]
    suffix = {"3ms": "", "3fs": "ה", "3p": "ו"}[pgn]
  elif tense == "present":
    stem = {"PAAL": c1 + "ו" + c2 + c3, "NIFAL": "נ" + c1 + c2 + c3,
            "HIFIL": "מ" + c1 + c2 + "י" + c3,
            "HUFAL": "מו" + c1 + c2 + c3}[binyan]
    fs = "ה" if binyan == "HIFIL" else "ת"
    suffix = {"ms": "", "fs": fs, "mp": "ים", "fp": "ות"}[pgn]
  else:
    prefix = {"3ms": "י", "3fs": "ת", "3mp": "י"}[pgn]
    if binyan == "PAAL":
      # The o of yiCCoC is written, but not before the plural suffix
      # (יכתוב / יכתבו); the a of yiCCaC never is.
      o = "ו" if paal_future == "o" and pgn != "3mp" else ""
      stem = c1 + c2 + o + c3
    else:
      stem = {"NIFAL": "י" + c1 + c2 + c3, "HIFIL": c1 + c2 + "י" + c3,
              "HUFAL": "ו" + c1 + c2 + c3}[binyan]
    stem = prefix + stem
    suffix = "ו" if pgn == "3mp" else ""
  return _finalise(stem + suffix)


def all_forms(root: str, binyan: str, paal_future: str = "o"
              ) -> dict[tuple[str, str], str]:
  return {infl: form(root, binyan, *infl, paal_future=paal_future)
          for infl in INFLECTIONS}


def strip_finals(word: str) -> str:
  """Final letters back to their ordinary forms (for reading roots)."""
  return "".join(NON_FINAL.get(c, c) for c in word)
