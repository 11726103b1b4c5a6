"""The spray/load lexical seed set: contents, variety, and bad input failing
with a message naming the file and entry (and leaving no dataset behind)."""

import json
import pathlib
import shutil

import pytest

from data_builders.blm_spray_load import english, lexicon
from data_builders.common import loading as data

# 000 footnote 5 / 004 footnote 3.
VERBS = ("baste brush drizzle hang load plaster pump rub scatter seed sew "
         "shower smear smudge sow spatter splash splatter spray spread "
         "sprinkle spritz spurt squirt stick strew string swab swash "
         "wrap").split()


@pytest.fixture(scope="module")
def lex():
  return lexicon.load_lexicon()


def test_every_verb_of_the_papers_has_a_full_entry(lex):
  assert lex.verbs == tuple(VERBS)
  for e in lex.entries:
    for role, nps in e.args.items():
      assert len(nps) == 5, (e.verb, role)
      texts = [np.text.lower() for np in nps]
      assert len(set(texts)) == 5, (e.verb, role, texts)
    roles = [{np.text.lower() for np in nps} for nps in e.args.values()]
    assert not (roles[0] & roles[1] or roles[0] & roles[2]
                or roles[1] & roles[2]), e.verb
    assert e.prepositions and "with" not in e.prepositions
    assert len(e.wrong_prepositions) >= 2
    assert not set(e.wrong_prepositions) & set(e.prepositions)
    assert all(len(m) >= 2 for m in e.modifiers.values())


def test_irregular_forms(lex):
  participles = {e.verb: e.forms.participle for e in lex.entries}
  assert {v: participles[v] for v in
          ("hang", "sow", "sew", "strew", "string", "stick", "spread")} == {
              "hang": "hung", "sow": "sown", "sew": "sewn", "strew": "strewn",
              "string": "strung", "stick": "stuck", "spread": "spread"}


def test_seeds_vary_sentence_types(lex):
  frames = [e.frame for e in lex.entries]
  groups = {f.group for f in frames}
  assert len(groups) >= 10, groups
  assert {"can", "should", "must", "will", "could", "would"} & groups
  assert any(f.wrapper.startswith("Make sure") for f in frames)  # Imperative.
  assert sum("where {clause}" in f.wrapper for f in frames) >= 2  # Relative.
  agents = [lexicon.parse_markup(e.seed)[1]["AGENT"] for e in lex.entries]
  pronoun_seeds = [a for a in agents
                   if a in english.PRONOUNS or a.lower() in english.PRONOUNS]
  assert len(pronoun_seeds) >= 5
  assert sum(e.seed.index("[THEME") < e.seed.index("[LOC")
             for e in lex.entries) >= 8  # Both alternants as seeds.


def test_seed_text_is_what_the_generator_writes(lex):
  e = lex["sew"]
  assert e.seed_text == "My mother used to sew patches onto my jeans."


def test_article_checker():
  assert english.article_error("a apple") == "'a apple' should be 'an apple'"
  assert english.article_error("an box") == "'an box' should be 'a box'"
  assert english.article_error("a university") is None
  assert english.article_error("an hour") is None


# --- Bad input. -----------------------------------------------------------

def _corrupt(tmp_path, verb, edit):
  folder = tmp_path / "lexicon"
  shutil.copytree(lexicon.LEXICON_DIR, folder)
  path = folder / f"{verb}.json"
  raw = json.loads(path.read_text())
  edit(raw)
  path.write_text(json.dumps(raw))
  return folder, path


BAD = {
    "missing slot": (lambda r: r.pop("themes"), "themes: missing"),
    "unknown template label": (
        lambda r: r["distractors"].update(LEXPRP=["under"]),
        "distractors.LEXPRP: unknown template label 'LEXPRP'"),
    "known label without material": (
        lambda r: r["distractors"].update({"SSM-1": ["x"]}),
        "distractors.SSM-1: unknown template label 'SSM-1'; labels taking "
        "lexical material: ['LEXPREP', 'NOEMB']"),
    "verb without prepositions": (
        lambda r: r.update(prepositions=[]),
        "prepositions: verb without locative prepositions"),
    "four agents": (lambda r: r["agents"].pop(),
                    "agents: expected 5 entries, got 4"),
    "repeated theme": (
        lambda r: r["themes"].__setitem__(1, r["themes"][0]),
        "themes[1]: 'insecticide' repeated"),
    "noun without number": (lambda r: r["locations"].__setitem__(0, "the roses"),
                            "locations[0]: 'the roses' is not a pronoun"),
    "wrong article": (lambda r: r["themes"].__setitem__(2, ["a insecticide",
                                                             "sg"]),
                      "themes[2]: 'a insecticide' should be 'an insecticide'"),
    "unknown verb group": (lambda r: r["frame"].update(group="pluperfect"),
                           "frame.group: unknown verb group 'pluperfect'"),
    "seed does not regenerate": (
        lambda r: r["forms"].update(third_singular="spray"),
        "seed: regenerated from its arguments and frame it reads 'The "
        "gardener spray the roses with insecticide every week.'"),
    "right preposition listed as wrong": (
        lambda r: r["distractors"].update(LEXPREP=["under", "onto"]),
        "distractors.LEXPREP: ['onto'] are right prepositions"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_lexicon_names_file_entry_and_field(tmp_path, case):
  edit, expected = BAD[case]
  folder, path = _corrupt(tmp_path, "spray", edit)
  with pytest.raises(lexicon.LexiconError) as err:
    lexicon.load_lexicon(folder)
  assert str(err.value).startswith(f"{path}: entry 'spray': "), str(err.value)
  assert expected in str(err.value), str(err.value)


def test_invalid_json_names_the_line(tmp_path):
  folder = tmp_path / "lexicon"
  shutil.copytree(lexicon.LEXICON_DIR, folder)
  path = folder / "load.json"
  lines = path.read_text().splitlines()
  lines[3] = lines[3].rstrip(",")  # A missing comma on line 4.
  path.write_text("\n".join(lines))
  with pytest.raises(lexicon.LexiconError, match=r"load\.json: line 5: "
                     r"invalid JSON"):
    lexicon.load_lexicon(folder)


@pytest.mark.slow
def test_bad_lexicon_fails_the_build_and_leaves_nothing(tmp_path, monkeypatch):
  folder, path = _corrupt(tmp_path, "wrap", lambda r: r.update(prepositions=[]))
  monkeypatch.setattr(lexicon, "LEXICON_DIR", folder)
  out = tmp_path / "data"
  b = data.builder("blm_spray_load/ALT-ATL_type_I", str(out))
  with pytest.raises(lexicon.LexiconError,
                     match=f"{path}: entry 'wrap': prepositions: verb without "
                     "locative prepositions"):
    b.download_and_prepare()
  assert not data.builder("blm_spray_load/ALT-ATL_type_I",
                          str(out)).is_prepared()
  assert not list(pathlib.Path(out).glob("blm_spray_load/*/1.0.0"))
