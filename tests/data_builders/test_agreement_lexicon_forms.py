"""Every noun form of the four agreement lexicons checked against the
language's regular plural (and Romanian case) morphology; the irregular ones
are listed here by name, so a new slip (issue 34: Italian `parco` -> `parci`)
fails with the entry and the form it expected."""

import pytest

from data_builders.blm_agreement import lexicon

# Irregular English plurals.
EN_IRREGULAR = {"child": "children", "man": "men", "mouse": "mice",
                "woman": "women"}
# Italian -co/-go nouns stressed on the antepenult (or amico, nemico, greco,
# porco) take -ci/-gi; the others -chi/-ghi (parco -> parchi, lago -> laghi).
IT_CO_CI = {"amico", "meccanico", "sindaco", "medico", "nemico", "greco",
            "porco", "monaco", "tecnico", "politico", "psicologo", "asparago"}


def _en(n):
  sg = n.key
  if sg in EN_IRREGULAR:
    return {EN_IRREGULAR[sg]}
  if sg.endswith(("s", "x", "z", "ch", "sh")):
    return {sg + "es"}
  if sg.endswith("y") and sg[-2] not in "aeiou":
    return {sg[:-1] + "ies"}
  if sg.endswith("f"):
    return {sg + "s", sg[:-1] + "ves"}
  if sg.endswith("fe"):
    return {sg + "s", sg[:-2] + "ves"}
  return {sg + "s"}


def _fr(n):
  sg = n.form("sg")
  if sg.endswith(("s", "x", "z")):
    return {sg}
  if sg.endswith("al"):
    return {sg[:-2] + "aux"}
  if sg.endswith(("eau", "au", "eu")):
    return {sg + "x"}
  return {sg + "s"}


def _it(n):
  sg = n.form("sg")
  if sg.endswith(("co", "go")):
    return {sg[:-1] + "i"} if sg in IT_CO_CI else {sg[:-1] + "hi"}
  if sg.endswith("io"):
    return {sg[:-1]}
  if sg.endswith(("cia", "gia")):
    return {sg[:-2] + "e", sg[:-1] + "e"}
  if sg.endswith(("ca", "ga")):
    return {sg[:-1] + "he" if n.gender == "f" else sg[:-1] + "hi"}
  if sg.endswith("a"):
    return {sg[:-1] + ("e" if n.gender == "f" else "i")}
  if sg.endswith(("o", "e")):
    return {sg[:-1] + "i"}
  return {sg}  # Invariable (città, re, film).


def _ro_errors(n):
  """Romanian: the genitives follow from the nominative forms (m/n -ul/-le
  + -ui, f from the plural stem + -i), the definite plural from gen_pl."""
  sg, pl, gs, gp = (n.form("sg"), n.form("pl"), n.form("sg", "gen"),
                    n.form("pl", "gen"))
  errs = []
  if pl.endswith("ii"):
    want_gp = pl[:-1] + "lor"
  elif pl.endswith("le"):
    want_gp = pl[:-2] + "lor"
  else:
    errs.append(f"definite plural {pl!r} ends in neither -ii nor -le")
    want_gp = gp
  if gp != want_gp:
    errs.append(f"gen_pl {gp!r}, expected {want_gp!r}")
  if n.gender == "f":
    want_gs = {gp[:-3] + "i", sg[:-1] + "ei"}
  elif sg.endswith("ul"):
    want_gs = {sg + "ui"}
  else:
    want_gs = {sg[:-1] + "ui", sg[:-2] + "lui"}
  if gs not in want_gs:
    errs.append(f"gen_sg {gs!r}, expected one of {sorted(want_gs)}")
  return errs


@pytest.mark.parametrize("lang", lexicon.LANGUAGES)
def test_every_noun_has_its_regular_or_listed_plural(lang):
  bad = []
  for n in lexicon.load(lang).nouns.values():
    if lang == "ro":
      bad += [f"{n.key}: {e}" for e in _ro_errors(n)]
      continue
    want = {"en": _en, "fr": _fr, "it": _it}[lang](n)
    if n.form("pl") not in want:
      bad.append(f"{n.key}: plural {n.form('pl')!r}, expected one of "
                 f"{sorted(want)}")
  assert not bad, f"lexicon/{lang}/nouns.tsv:\n" + "\n".join(bad)


def test_the_validator_catches_the_italian_slip():
  parco = lexicon.Noun("parco", {"sg": "parco", "pl": "parci"}, "m")
  assert _it(parco) == {"parchi"}
  assert lexicon.load("it").nouns["parco"].form("pl") == "parchi"
