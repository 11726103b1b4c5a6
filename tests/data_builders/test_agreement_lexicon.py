"""The agreement lexicons and per-language morphology."""

import pytest

from data_builders.blm_agreement import lexicon, realise, templates
from data_builders.blm_agreement.lexicon import Noun, Verb


def _np(lang, noun, num):
  return realise.MORPHOLOGY[lang].np(noun, num)


def _pp(lang, prep, noun, num):
  return realise.MORPHOLOGY[lang].pp(prep, noun, num)


@pytest.mark.parametrize("lang", lexicon.LANGUAGES)
def test_every_lexicon_loads_and_every_seed_rebuilds_its_sentence(lang):
  lex = lexicon.load(lang)  # Checks each frame's hand-written sentence.
  assert len(lex.frames) >= 24
  assert len(lex.prefixes) >= 6 and len(lex.relatives) >= 6
  for n in lex.nouns.values():
    assert n.form("sg") != n.form("pl")
  for v in lex.verbs.values():
    assert v.sg != v.pl


def test_english_irregular_plurals_and_auxiliaries():
  lex = lexicon.load("en")
  assert lex.nouns["child"].form("pl") == "children"
  assert lex.nouns["mouse"].form("pl") == "mice"
  assert lex.nouns["leaf"].form("pl") == "leaves"
  assert lex.verbs["is broken"].pl == "are broken"
  assert lex.verbs["has sunk"].pl == "have sunk"


def test_french_articles_elision_contractions():
  m, f = "m", "f"
  programme = Noun("programme", {"sg": "programme", "pl": "programmes"}, m)
  ecole = Noun("école", {"sg": "école", "pl": "écoles"}, f)
  hotel = Noun("hôtel", {"sg": "hôtel", "pl": "hôtels"}, m, "yes")
  herisson = Noun("hérisson", {"sg": "hérisson", "pl": "hérissons"}, m, "no")
  assert _np("fr", ecole, "sg") == "l'école"
  assert _np("fr", programme, "pl") == "les programmes"
  assert _pp("fr", "de", programme, "sg") == "du programme"
  assert _pp("fr", "de", programme, "pl") == "des programmes"
  assert _pp("fr", "à", programme, "sg") == "au programme"
  assert _pp("fr", "à", ecole, "pl") == "aux écoles"
  assert _pp("fr", "de", ecole, "sg") == "de l'école"
  assert _pp("fr", "près de", programme, "sg") == "près du programme"
  assert _pp("fr", "avec", hotel, "sg") == "avec l'hôtel"
  assert _pp("fr", "de", herisson, "sg") == "du hérisson"
  with pytest.raises(ValueError, match="starts with h"):
    _np("fr", Noun("haricot", {"sg": "haricot", "pl": "haricots"}, m), "sg")


def test_italian_articles_and_contractions():
  giardino = Noun("giardino", {"sg": "giardino", "pl": "giardini"}, "m")
  zaino = Noun("zaino", {"sg": "zaino", "pl": "zaini"}, "m")
  albero = Noun("albero", {"sg": "albero", "pl": "alberi"}, "m")
  isola = Noun("isola", {"sg": "isola", "pl": "isole"}, "f")
  assert _pp("it", "di", giardino, "sg") == "del giardino"
  assert _pp("it", "di", giardino, "pl") == "dei giardini"
  assert _pp("it", "di", zaino, "sg") == "dello zaino"
  assert _pp("it", "in", zaino, "pl") == "negli zaini"
  assert _pp("it", "a", albero, "sg") == "all'albero"
  assert _pp("it", "su", isola, "pl") == "sulle isole"
  assert _pp("it", "vicino a", giardino, "sg") == "vicino al giardino"
  assert _pp("it", "con", albero, "pl") == "con gli alberi"
  assert _np("it", isola, "sg") == "l'isola"


def test_romanian_enclitic_articles_and_genitives():
  lex = lexicon.load("ro")
  masa = lex.nouns["masă"]
  assert _np("ro", masa, "pl") == "mesele"
  assert _pp("ro", "gen", masa, "sg") == "mesei"
  assert _pp("ro", "gen", lex.nouns["copil"], "pl") == "copiilor"
  assert _pp("ro", "cu", lex.nouns["minge"], "sg") == "cu mingea"
  coord = realise.MORPHOLOGY["ro"].coord
  # The possessive article agrees with the possessed subject.
  assert coord("gen", lex.nouns["oraș"], "sg", lex.nouns["scrisoare"],
               "sg") == "și a orașului"
  assert coord("gen", lex.nouns["oraș"], "sg", lex.nouns["mesaj"],
               "pl") == "și ale orașului"
  assert coord("gen", lex.nouns["sat"], "pl", lex.nouns["cal"],
               "sg") == "și al satelor"
  assert coord("cu", lex.nouns["sat"], "sg", lex.nouns["cal"],
               "sg") == "și satul"
  with pytest.raises(ValueError, match="preposition 'pe' is not supported"):
    _pp("ro", "pe", masa, "sg")


@pytest.mark.parametrize("lang", lexicon.LANGUAGES)
def test_sentences_capitalised_and_chunked(lang):
  lex = lexicon.load(lang)
  f = lex.frames[0]
  w = realise.Words(lex.nouns[f.n[0]], f.p1, lex.nouns[f.n1[0]], f.p2,
                    lex.nouns[f.n2[0]], lex.verbs[f.vp[0]], rc=lex.relatives[0])
  s = realise.sentence(lang, templates.sentence_pattern(
      "relative", "pl", "sg", None), w)
  assert s.text[0].isupper() and s.text.endswith(".")
  assert s.chunks[2] == "" and s.chunks[3] == lex.relatives[0]
  assert s.chunks[-2] == lex.verbs[f.vp[0]].pl


def test_bad_files_name_file_line_and_entry(tmp_path):
  folder = tmp_path / "en"
  folder.mkdir()
  (folder / "nouns.tsv").write_text("sg\tpl\nbox\tboxes\nbox\tboxes\n",
                                    encoding="utf-8")
  with pytest.raises(lexicon.LexiconError,
                     match=r"en/nouns.tsv line 3, entry 'box': duplicate"):
    lexicon.load("en", tmp_path)
  (folder / "nouns.tsv").write_text("sg\tpl\nsheep\tsheep\n", encoding="utf-8")
  with pytest.raises(lexicon.LexiconError,
                     match=r"line 2, entry 'sheep': singular and plural"):
    lexicon.load("en", tmp_path)
  with pytest.raises(lexicon.LexiconError, match="unknown language 'de'"):
    lexicon.load("de")
