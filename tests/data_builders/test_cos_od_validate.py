"""The linguistic checks of the CoS / OD and spray/load data
(`data_builders/<package>/validate.py`), the lexicon declarations they read,
and `lint` running them.

Fast tests: each check catches a hand-made bad instance. The `full_scan`
tests generate every `_seq` config at full size and hold each check to 0.
"""

from __future__ import annotations

import json

import pytest

from blm_jax.cli import lint as lint_cli
from blm_jax.data import lint as lint_lib
from data_builders.blm_cos_od import lexicon as lexicon_lib
from data_builders.blm_cos_od import realise, seq, templates
from data_builders.blm_cos_od import validate
from data_builders.blm_spray_load import validate as spray_validate
from data_builders.common import validation
from data_builders.common.schema import BLMInstance


def _verb(cls, language, lemma):
  return next(v for v in lexicon_lib.load(cls, language).verbs
              if v.lemma == lemma)


def _say(verb, cls, language, form, tail, agent=None, theme=None,
         p_np=None, by_np=None, frame=realise.Frame("past"), role_swap=False,
         wrong_by=False):
  """One sentence of a form x tail cell with the given material."""
  pat = templates.form_pattern(form, cls, language, templates.tail_slot(tail))
  if role_swap:
    pat = templates.RULES["I"].corrupt(pat)
  if wrong_by:
    pat = templates.RULES["E"].corrupt(pat)
  m = realise.Material(verb, agent or verb.agents[0], theme or verb.themes[0],
                       p_np or verb.p_nps[0], by_np or verb.by_nps[0])
  return realise.realise(pat, m, frame, language)


def _instance(context, answers, labels, family="od_seq", language="en",
              lexical_type="II"):
  return BLMInstance(id="x-00001", family=family, language=language,
                     lexical_type=lexical_type, subset="main",
                     context=tuple(context), answers=tuple(answers),
                     correct=0, labels=tuple(labels))


def _run(name, x):
  check = next(c for c in validate.CHECKS if c.name == name)
  return list(check.run(x))


def _seven(verb, cls, language, **kw):
  cells = [("TRANS", "P"), ("TRANS", "BY"), ("PASSBY", "P"),
           ("PASSBY", "BY"), ("PASS", "P"), ("PASS", "BY"), ("INT", "P")]
  return [_say(verb, cls, language, f, t, **kw) for f, t in cells]


def test_a_mass_noun_with_a_plural_verb_is_found():
  plow = _verb("od", "en", "plow")
  stubble = lexicon_lib.NP("the stubble", "pl")
  bad = _say(plow, "od", "en", "PASS", "P", theme=stubble)
  assert bad.text.startswith("The stubble were plowed")
  x = _instance([bad] + _seven(plow, "od", "en")[1:], [bad], ["CORRECT"])
  assert _run("mass_noun_plural", x) == [
      f"context 1: mass noun 'the stubble' with a plural verb "
      f"({bad.text!r})",
      f"answer 1 (CORRECT): mass noun 'the stubble' with a plural verb "
      f"({bad.text!r})"]
  good = _say(plow, "od", "en", "PASS", "P",
              theme=lexicon_lib.NP("the stubble", "sg"))
  assert not _run("mass_noun_plural", _instance([good], [good], ["CORRECT"]))


def test_type_i_e_int_with_another_noun_is_found():
  milk = _verb("od", "en", "milk")
  cow = milk.themes[0]
  assert cow.text == "the cow" and cow.text in milk.landmarks
  context = _seven(milk, "od", "en", theme=cow)
  right = _say(milk, "od", "en", "INT", "BY", theme=cow)
  trans = _say(milk, "od", "en", "TRANS", "P", theme=cow)
  # realise swaps the landmark "the cow" after by for another theme.
  e_int = _say(milk, "od", "en", "INT", "BY", theme=cow, wrong_by=True)
  assert "by the cow" not in e_int.text
  x = _instance(context, [right, trans, e_int], ["CORRECT", "R-TRANS-P",
                                                 "E-INT"], lexical_type="I")
  found = _run("e_int_own_nouns", x)
  assert len(found) == 1 and found[0].startswith("answer 3 (E-INT): ")
  assert "occurs in no other sentence of this type I instance" in found[0]
  # Type II draws its nouns per sentence: not its business.
  assert not _run("e_int_own_nouns", _instance(context, [right, trans, e_int],
                                               ["CORRECT", "R-TRANS-P",
                                                "E-INT"]))


def test_a_declared_incompatible_pair_is_found():
  whiten = _verb("cos", "en", "whiten")
  wall = next(t for t in whiten.themes if t.text == "the wall")
  laundress = next(a for a in whiten.agents if a.text == "the laundress")
  assert not whiten.compatible("the laundress", "the wall")
  bad = _say(whiten, "cos", "en", "TRANS", "P", agent=laundress, theme=wall)
  x = _instance([bad], [bad], ["CORRECT"], family="cos_seq")
  assert _run("role_plausibility", x)[0] == (
      "context 1: whiten with 'the laundress' and 'the wall', which its "
      f"lexicon entry declares incompatible ({bad.text!r})")
  # The by-phrase of a passive counts, with its by taken off.
  passive = _say(whiten, "cos", "en", "PASSBY", "P", agent=laundress,
                 theme=wall)
  assert _run("role_plausibility", _instance([passive], [passive],
                                             ["CORRECT"], family="cos_seq"))
  # Italian: da fused with the article (dal calzolaio) is read too.
  ammorbidire = _verb("cos", "it", "ammorbidire")
  burro = next(t for t in ammorbidire.themes if t.text == "il burro")
  it = _say(ammorbidire, "cos", "it", "PASSBY", "P", theme=burro,
            p_np="al sole", frame=realise.Frame("rem"))
  assert "dal calzolaio" in it.text
  assert "'il burro' and 'il calzolaio'" in _run(
      "role_plausibility", _instance([it], [it], ["CORRECT"],
                                     family="cos_seq", language="it"))[0]


def test_an_italian_passive_with_present_essere_is_found():
  incrinare = _verb("cos", "it", "incrinare")
  state = _say(incrinare, "cos", "it", "PASS", "P",
               frame=realise.Frame("pres", venire=False))
  event = _say(incrinare, "cos", "it", "PASS", "P",
               frame=realise.Frame("pres", venire=True))
  perfect = _say(incrinare, "cos", "it", "PASS", "P",
                 frame=realise.Frame("perf"))
  x = _instance([state, event, perfect], [event], ["CORRECT"],
                family="cos_seq", language="it")
  found = _run("stative_passive", x)
  assert found == [f"context 1: {state.chunks[1]!r} (essere + participle in "
                   "the present or imperfect) reads as a state; venire or "
                   f"the passato prossimo keeps the event ({state.text!r})"]


def test_repeated_context_sentences_by_type():
  bake = _verb("cos", "en", "bake")
  a = _say(bake, "cos", "en", "PASS", "P")
  b = _say(bake, "cos", "en", "PASS", "BY")
  again = _say(bake, "cos", "en", "PASS", "P")
  other_words = _say(bake, "cos", "en", "PASS", "P", theme=bake.themes[1])
  two = _instance([a, b, again], [b], ["CORRECT"], family="cos_seq")
  assert _run("repeated_context", two) == [
      f"context 1 and 3: {a.text!r} twice, in a type II context that "
      "varies the words"]
  # Type I repeats a sentence exactly where the pattern repeats.
  assert not _run("repeated_context", _instance(
      [a, b, again], [b], ["CORRECT"], family="cos_seq", lexical_type="I"))
  assert _run("repeated_context", _instance(
      [a, b, other_words], [b], ["CORRECT"], family="cos_seq",
      lexical_type="I")) == [
          f"context 1 and 3: one pattern in two wordings "
          f"({other_words.text!r})"]
  # spray/load declares the same rule.
  assert "repeated_context" in {c.name for c in spray_validate.CHECKS}


def test_the_lexicon_refuses_bad_declarations(tmp_path):
  path = lexicon_lib.lexicon_path("od", "en")
  raw = json.loads(path.read_text(encoding="utf-8"))

  def load(mutate):
    data = json.loads(json.dumps(raw))
    mutate(data)
    p = tmp_path / "od.json"
    p.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return lexicon_lib.load("od", "en", p)

  def plural_stubble(d):
    plow = next(v for v in d["verbs"] if v["verb"] == "plow")
    plow["themes"][plow["themes"].index("the stubble")] = "the stubble|pl"

  with pytest.raises(lexicon_lib.LexiconError,
                     match=r"verb entry #\d+ \('plow'\): mass noun 'the "
                     r"stubble' is marked plural"):
    load(plural_stubble)

  def unknown_item(d):
    d["verbs"][0]["incompatible"] = [["the janitor", "the moon"]]

  with pytest.raises(lexicon_lib.LexiconError,
                     match="'incompatible' item 'the moon' is none of"):
    load(unknown_item)

  def same_slot(d):
    d["verbs"][0]["incompatible"] = [["the janitor", "my sister"]]

  with pytest.raises(lexicon_lib.LexiconError, match="is two agents"):
    load(same_slot)

  def no_partner(d):
    v = d["verbs"][0]
    v["incompatible"] = [["the janitor", t.split("|")[0]]
                         for t in v["themes"]]

  with pytest.raises(lexicon_lib.LexiconError,
                     match="agent 'the janitor' is incompatible with every"):
    load(no_partner)


def test_seq_draws_honour_the_restrictions():
  """A small build: every check at 0 (the full sizes: full_scan below)."""
  for cls, lang, t in (("cos", "en", "I"), ("od", "it", "II")):
    xs = seq.generate_seq(cls, lang, t, num_instances=60)
    assert validate.count(xs) == {c.name: 0 for c in validate.CHECKS}


def test_lint_reports_a_family_check(monkeypatch, capsys):
  """A package's checks run in `lint` as warning rules of their own."""
  fake = validation.Check("no_bake", "no sentence bakes",
                          lambda x: [f"context {i + 1}: bakes"
                                     for i, s in enumerate(x.context)
                                     if "bake" in s.text])
  monkeypatch.setattr(validation, "checks_for",
                      lambda package: (fake,) if package == "blm_fake" else ())
  assert lint_cli.package_checks("blm_fake/some_config") == (fake,)
  assert lint_cli.package_checks("some_short_name") == ()
  bake = _verb("cos", "en", "bake")
  xs = [_instance([_say(bake, "cos", "en", "PASS", "P")],
                  [_say(bake, "cos", "en", "PASS", "BY")], ["CORRECT"],
                  family="cos_seq") for _ in range(5)]
  report = lint_lib.lint(xs, checks=(fake,))
  assert report.counts["no_bake"] == 5
  assert report.warnings == {"no_bake": 5}
  assert not report.ok(strict=True) and report.ok()
  text = report.format("t")
  assert "WARNING no_bake: 5/5 (no sentence bakes)" in text
  assert text.count("e.g. x-00001: context 1: bakes") == 3
  monkeypatch.setattr(lint_cli, "_sources", lambda target, *_: iter(
      [(f"{target}[train]", xs)]))
  monkeypatch.setattr(lint_cli, "targets_of", lambda target: [target])
  monkeypatch.setattr(lint_cli, "context_necessary", lambda *_, **__: False)
  assert lint_cli.main(["blm_fake/some_config"]) == 0
  assert lint_cli.main(["blm_fake/some_config", "--strict"]) == 1
  out = capsys.readouterr().out
  assert "WARNING no_bake: 5/5" in out
  assert "warnings {'no_bake': 5}" in out


@pytest.mark.full_scan
def test_lint_prints_the_cos_od_checks(tmp_path, capsys):
  """The real CLI on a built `_seq` config names every CoS / OD check."""
  code = lint_cli.main(["blm_cos_od/od_en_seq_type_II", "--sample=200",
                        "--split=test", "--data_dir", str(tmp_path)])
  out = capsys.readouterr().out
  for c in validate.CHECKS:
    assert f"ok      {c.name}: 0/200" in out
  assert code == 0


@pytest.mark.full_scan
@pytest.mark.parametrize("regime", ["", "rules"])
def test_every_cos_od_seq_config_scans_to_zero(regime):
  for config, counts in validate.scan_configs((regime,)):
    assert counts == {c.name: 0 for c in validate.CHECKS}, config


@pytest.mark.full_scan
@pytest.mark.parametrize("lexical_type", ["I", "II", "III"])
def test_every_spray_load_seq_config_scans_to_zero(lexical_type):
  """seq_rules and seq_extrap split these same instances."""
  from data_builders.blm_spray_load import generate, lexicon

  xs = generate.generate_seq(lexical_type, lexicon.load_lexicon())
  counts = {c.name: 0 for c in spray_validate.CHECKS}
  for x in xs:
    for name in validation.findings(spray_validate.CHECKS, x):
      counts[name] += 1
  assert counts == {c.name: 0 for c in spray_validate.CHECKS}
