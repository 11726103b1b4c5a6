"""The spray/load BLM builder: sizes, strict lint, the papers' patterns and
named-rule corruptions, chunks that realise their patterns, morphology,
lexical types, splits and byte-identical rebuilds."""

import hashlib
import pathlib
import re

import pytest
import tensorflow_datasets as tfds

from blm_jax.data import lint
from data_builders.blm_spray_load import generate, lexicon
from data_builders.common import labels, loading as data
from data_builders.common.template import token_diff

TEMPLATES = ("ALT-ATL", "ATL-ALT")
CONFIGS = [(t, x) for t in TEMPLATES for x in ("I", "II", "III")]
SIZES = {"I": 3750, "II": 15000, "III": 15000}

# 000 Figures 5 and 6, transcribed. PP prepositions are the role's own
# (by for Agent, with for Theme, the verb's locative one for Loc) unless a
# suffix says otherwise: -Pwrong (LEXPREP), -with (the AASSM agent: 001
# Figures 4-5, "Paint sprayed the wall with the girl"). PP-Emb: a noun-modifying PP
# embedded in the object (the paper's "[NP-Theme PP-Loc]").
PAPER_CONTEXT = {
    "ALT-ATL": ["NP-Agent Verb NP-Loc PP-Theme"],
    "ATL-ALT": ["NP-Agent Verb NP-Theme PP-Loc"],
}
PASSIVES = ["NP-Theme VerbPass PP-Agent", "NP-Theme VerbPass PP-Loc PP-Agent",
            "NP-Theme VerbPass PP-Loc", "NP-Loc VerbPass PP-Agent",
            "NP-Loc VerbPass PP-Theme PP-Agent", "NP-Loc VerbPass PP-Theme"]
PAPER_ANSWERS = {
    "ALT-ATL": {
        "CORRECT": "NP-Agent Verb NP-Theme PP-Loc",
        "AGENTACT": "NP-Agent VerbPass NP-Theme PP-Loc",
        "ALT-NP": "NP-Agent Verb NP-Theme NP-Loc",
        "ALT-PP": "NP-Agent Verb PP-Theme PP-Loc",
        "NOEMB": "NP-Agent Verb NP-Theme PP-Emb",
        "LEXPREP": "NP-Agent Verb NP-Theme PP-Loc-Pwrong",
        "SSM-1": "NP-Theme Verb NP-Agent PP-Loc",
        "SSM-2": "NP-Loc Verb NP-Agent PP-Theme",
        "AASSM": "NP-Theme Verb NP-Loc PP-Agent-with",
    },
    "ATL-ALT": {
        "CORRECT": "NP-Agent Verb NP-Loc PP-Theme",
        "AGENTACT": "NP-Agent VerbPass NP-Loc PP-Theme",
        "ALT-NP": "NP-Agent Verb NP-Loc NP-Theme",
        "ALT-PP": "NP-Agent Verb PP-Loc PP-Theme",
        "NOEMB": "NP-Agent Verb NP-Loc PP-Emb",
        "LEXPREP": "NP-Agent Verb NP-Loc PP-Theme-Pwrong",
        "SSM-1": "NP-Loc Verb NP-Agent PP-Theme",
        "SSM-2": "NP-Theme Verb NP-Agent PP-Loc",
        "AASSM": "NP-Loc Verb NP-Theme PP-Agent-with",
    },
}


def _roles(pat: str) -> list[str]:
  return [tok.split("-")[1] for tok in pat.split() if tok.startswith("NP")
          or tok.startswith("PP")]


def _expected_diff(label: str, correct: str, wrong: str) -> bool:
  """Whether `wrong` differs from `correct` exactly as `label`'s rule says
  (000 Figure 4), judged from the two pattern strings alone."""
  diff = token_diff(correct, wrong)
  c, w = correct.split(), wrong.split()
  if label == "AGENTACT":  # Only the verb's voice.
    return diff == [("Verb", "VerbPass")]
  if label == "ALT-NP":  # The PP argument becomes a bare NP.
    return diff == [(c[3], "NP-" + c[3].split("-")[1])]
  if label == "ALT-PP":  # The object NP becomes a PP.
    return diff == [(c[2], "PP-" + c[2].split("-")[1])]
  if label == "NOEMB":  # The PP argument becomes a modifier of the object.
    return diff == [(c[3], "PP-Emb")]
  if label == "LEXPREP":  # Same PP, wrong preposition.
    return diff == [(c[3], c[3] + "-Pwrong")]
  # SSM: same syntax (categories, voice), roles reassigned: SSM-1 swaps
  # subject and object, SSM-2 puts the PP's role in subject position and the
  # agent in object position, AASSM demotes the agent into a with-PP.
  same_syntax = ([t.split("-")[0] for t in c] == [t.split("-")[0] for t in w])
  s0, o0, p0 = _roles(correct)
  ssm = {"SSM-1": [o0, s0, p0], "SSM-2": [p0, s0, o0],
         "AASSM": [o0, p0, s0]}
  if label not in ssm:
    raise AssertionError(f"no rule for label {label}")
  if label == "AASSM":
    same_syntax = same_syntax and w[3].endswith("-with")
  elif len(w[3].split("-")) != 2:  # The PP keeps its role's preposition.
    return False
  return same_syntax and _roles(wrong) == ssm[label]


@pytest.fixture(scope="module")
def lex():
  return lexicon.load_lexicon()


@pytest.fixture(scope="module")
def generated(lex):
  return {cfg: generate.generate(*cfg, lex) for cfg in CONFIGS}


def test_builder_configs():
  from data_builders.blm_spray_load import blm_spray_load_dataset_builder as b
  assert [c.name for c in b.Builder.BUILDER_CONFIGS] == [
      "ALT-ATL_type_I", "ALT-ATL_type_II", "ALT-ATL_type_III",
      "ATL-ALT_type_I", "ATL-ALT_type_II", "ATL-ALT_type_III",
      "ctx_type_I", "ctx_type_II", "ctx_type_III",
      "seq_type_I", "seq_type_II", "seq_type_III",
      "seq_rules_type_I", "seq_rules_type_II", "seq_rules_type_III",
      "seq_extrap_type_I", "seq_extrap_type_II", "seq_extrap_type_III"]
  assert b.Builder.name == "blm_spray_load"


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids="_type_".join)
def test_size_shape_labels_and_strict_lint(generated, cfg):
  xs = generated[cfg]
  assert len(xs) == SIZES[cfg[1]] and len({x.id for x in xs}) == len(xs)
  inventory = labels.family_labels("spray_load")
  for x in xs:
    assert len(x.context) == 7 and len(x.answers) == 9
    assert sorted(x.labels) == sorted(inventory)
    assert x.labels[x.correct] == "CORRECT"
    assert (x.family, x.language, x.subset, x.lexical_type) == (
        "spray_load", "en", cfg[0], cfg[1])
  report = lint.lint(xs)
  assert report.ok(strict=True), report.format("_type_".join(cfg))
  positions = [x.correct for x in xs]
  assert set(positions) == set(range(9))
  assert max(positions.count(i) for i in range(9)) < 0.15 * len(xs)
  assert len({tuple(s.text for s in x.context) for x in xs}) == len(xs)


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids="_type_".join)
def test_patterns_follow_the_paper_and_each_label_breaks_its_rule(
    generated, cfg):
  template = cfg[0]
  for x in generated[cfg]:
    assert [s.pattern for s in x.context] == PAPER_CONTEXT[template] + PASSIVES
    by_label = dict(zip(x.labels, (s.pattern for s in x.answers)))
    assert by_label == PAPER_ANSWERS[template]
  correct = PAPER_ANSWERS[template]["CORRECT"]
  for label, wrong in PAPER_ANSWERS[template].items():
    if label != "CORRECT":
      assert _expected_diff(label, correct, wrong), (label, wrong)
  # The check itself tells rules apart: no label's pattern passes another's.
  for label in PAPER_ANSWERS[template]:
    for other, wrong in PAPER_ANSWERS[template].items():
      if "CORRECT" not in (label, other) and label != other:
        assert not _expected_diff(label, correct, wrong), (label, other)


# --- Reading a sentence back from its chunks. -------------------------------

_ACC_TO_NOM = {"me": "I", "you": "you", "him": "he", "her": "she", "it": "it",
               "us": "we", "them": "they"}
# Auxiliary -> subjects it agrees with (1sg, 3sg, pl); modals agree with all.
_AUX_AGREES = {"is": {"3sg"}, "was": {"1sg", "3sg"}, "has": {"3sg"},
               "isn't": {"3sg"}, "wasn't": {"1sg", "3sg"}, "needs": {"3sg"},
               "am": {"1sg"}, "are": {"pl"}, "were": {"pl"}, "have": {"pl", "1sg"},
               "aren't": {"pl"}, "weren't": {"pl"}, "need": {"pl", "1sg"}}


def _index(lex):
  """verb forms -> entry; (role, text) -> NP, over the whole lexicon."""
  verbs, nps = {}, {}
  for e in lex.entries:
    for key in ("past", "participle", "third_singular", "gerund"):
      verbs.setdefault(getattr(e.forms, key), set()).add(e.verb)
    verbs.setdefault(e.verb, set()).add(e.verb)
    for role, items in e.args.items():
      for np in items:
        nps[role, np.text] = np
  return verbs, nps


def _agreement(np) -> str:
  if np.text == "I":
    return "1sg"
  return "pl" if np.number == "pl" or np.text in ("you", "we", "they") else "3sg"


def read_back(s, lex, index):
  """Checks that chunk i+1 realises pattern slot i; returns (verb, role->NP
  text) of the sentence."""
  verbs, nps = index
  toks = s.pattern.split()
  chunks = list(s.chunks)
  assert len(chunks) == len(toks) + 3 and chunks[-1] == "."
  assert " ".join(c for c in chunks if c).replace(" .", ".") == s.text
  body = chunks[1:-2]
  verb_chunk = body[1].split()
  verb = [v for w in verb_chunk for v in verbs.get(w, ())]
  assert len(set(verb)) == 1, (s.text, verb_chunk)
  e = lex[verb[0]]
  args = {}

  def np_of(role, text, subject):
    text = text[:1].lower() + text[1:] if (role, text) not in nps else text
    if not subject and text in _ACC_TO_NOM:
      text = _ACC_TO_NOM[text]
    assert (role, text) in nps and nps[role, text] in e.args[role], (
        s.text, role, text)
    assert args.setdefault(role, text) == text
    return nps[role, text]

  subject = None
  for i, (tok, chunk) in enumerate(zip(toks, body)):
    cat, *rest = tok.split("-")
    if cat == "NP":
      np = np_of(rest[0], chunk, subject=(i == 0))
      subject = subject or np
    elif cat == "Verb":
      assert chunk.split()[-1] in (e.verb, e.forms.third_singular, e.forms.past,
                                   e.forms.participle, e.forms.gerund)
    elif cat == "VerbPass":
      words = chunk.split()
      assert words[-1] == e.forms.participle, s.text
      aux = words[0]
      assert _agreement(subject) in _AUX_AGREES.get(aux, {"1sg", "3sg", "pl"}), (
          s.text, aux, subject)
    elif rest == ["Emb"]:
      prev_role = toks[i - 1].split("-")[1]
      assert chunk in e.modifiers[prev_role], s.text
    else:
      role, kind = rest[0], (rest[1] if len(rest) > 1 else "")
      prep = [p for p in ("by", "with") + e.prepositions + e.wrong_prepositions
              if chunk.startswith(p + " ")]
      assert prep, s.text
      prep = max(prep, key=len)
      if kind == "":  # The role's own preposition.
        allowed = {"Agent": {"by"}, "Theme": {"with"},
                   "Loc": set(e.prepositions)}[role]
      else:
        allowed = {"Pwrong": set(e.wrong_prepositions), "with": {"with"},
                   "Ploc": set(e.prepositions)}[kind]
      assert prep in allowed, (s.text, tok, prep)
      np_of(role, chunk[len(prep) + 1:], subject=False)
  return e.verb, args


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids="_type_".join)
def test_chunks_realise_patterns_and_lexical_type(generated, lex, cfg):
  index = _index(lex)
  xs = generated[cfg]
  sample = xs if cfg[1] == "I" else xs[::10]
  varied_args = 0
  for x in sample:
    read = [read_back(s, lex, index) for s in x.context + x.answers]
    verbs = {v for v, _ in read}
    fillers = {role: {a[role] for _, a in read if role in a}
               for role in ("Agent", "Theme", "Loc")}
    if cfg[1] == "I":  # One verb, agent, theme and location throughout.
      assert len(verbs) == 1 and all(len(v) == 1 for v in fillers.values())
    elif cfg[1] == "II":  # One verb; arguments vary.
      assert len(verbs) == 1
      varied_args += all(len(v) > 1 for v in fillers.values())
    else:  # Everything varies.
      assert len(verbs) >= 3, x.id
  if cfg[1] == "II":
    assert varied_args > 0.9 * len(sample)


@pytest.mark.slow
def test_golden_instance_reads_as_english(generated):
  xs = {x.id: x for x in generated["ALT-ATL", "I"]}
  x = xs["ALT-ATL-I-sew-a0t0l0"]
  assert [s.text for s in x.context] == [
      "My mother used to sew my jeans with patches.",
      "Patches used to be sewn by my mother.",
      "Patches used to be sewn onto my jeans by my mother.",
      "Patches used to be sewn onto my jeans.",
      "My jeans used to be sewn by my mother.",
      "My jeans used to be sewn with patches by my mother.",
      "My jeans used to be sewn with patches."]
  answers = dict(zip(x.labels, (s.text for s in x.answers)))
  assert answers["CORRECT"] == "My mother used to sew patches onto my jeans."
  assert answers["AGENTACT"] == (
      "My mother used to be sewn patches onto my jeans.")
  assert answers["SSM-2"] == "My jeans used to sew my mother with patches."
  # 001 Figure 4: "Paint sprayed the wall with the girl" (not "onto the
  # girl", which gave the demoted agent the target's locative preposition).
  assert answers["AASSM"] == "Patches used to sew my jeans with my mother."
  # Passive auxiliaries agree with their subjects; pronoun case follows
  # position.
  x = xs["ALT-ATL-I-spray-a3t2l0"]
  texts = [s.text for s in x.context + x.answers]
  assert "The roses are sprayed with a fungicide by us every week." in texts
  assert "A fungicide is sprayed onto the roses by us every week." in texts
  assert "A fungicide sprays us onto the roses every week." in texts
  assert "We are sprayed a fungicide onto the roses every week." in texts


_PRONOUN_AFTER_PREP = re.compile(
    r"\b(by|with|on|onto|into|over|around|across|along|under|behind|beside|"
    r"beneath|inside|in|sprayed|sews?|loads?) (I|we|he|she|they)\b")


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids="_type_".join)
def test_morphology(generated, lex, cfg):
  plural = {t for e in lex.entries for nps in e.args.values() for np in nps
            if np.number == "pl" and np.text not in ("we", "they", "you")
            for t in (np.text, np.text[:1].upper() + np.text[1:])}
  texts = sorted({s.text for x in generated[cfg] for s in x.context + x.answers})
  blob = "\n".join(texts)  # One regex scan per check (one line per sentence).
  checks = {
      "a before a vowel": r"\b[Aa] [aeiouAEIOU]",
      "an before a consonant": r"\b[Aa]n [^aeiouAEIOU]",
      "nominative pronoun as object": _PRONOUN_AFTER_PREP.pattern,
      "accusative pronoun as subject": r"(^|where |sure )(Me|me|Us|us|Him|him"
                                       r"|Them|them) ",
      "regularised participle": r"\b(hanged|sowed|sewed|strewed|stringed|"
                                r"sticked|spreaded) (by|with|on|onto|across|"
                                r"along|over|in|into)\b",
      "singular auxiliary after a plural subject": (
          r"(^|where |sure |spring |autumn |storm )(" + "|".join(
              re.escape(t) for t in plural) + r") (is|was|has|isn't|wasn't) "),
      "sentence shape": r"^[^A-Z]|[^.]$|  ",
  }
  for what, regex in checks.items():
    m = re.search(regex, blob, flags=re.M)
    assert not m, (what, blob[blob.rfind("\n", 0, m.start()) + 1:][:120])
  irregular = {"hung", "sown", "sewn", "strewn", "strung", "stuck", "spread"}
  assert irregular <= set(blob.split())


@pytest.mark.slow
def test_splits_rebuild_and_data_source(tmp_path, generated):
  name = "blm_spray_load/ATL-ALT_type_I"
  digests = []
  for d in ("a", "b"):
    b = data.builder(name, str(tmp_path / d))
    b.download_and_prepare()
    files = sorted(pathlib.Path(b.data_dir).glob("*array_record*"))
    digests.append([p.read_bytes() for p in files])
  assert digests[0] == digests[1] and len(digests[0]) == 3
  source = tfds.data_source(name, data_dir=str(tmp_path / "a"))
  assert {k: len(v) for k, v in source.items()} == {
      "train": 2700, "dev": 675, "test": 375}
  splits = {s: data.load_instances(name, s, str(tmp_path / "a"))
            for s in ("train", "dev", "test")}
  everything = {x.id: x for x in generated["ATL-ALT", "I"]}
  read = [x for v in splits.values() for x in v]
  assert sorted(x.id for x in read) == sorted(everything)
  for x in read:
    assert x == everything[x.id]
  contexts = [{tuple(s.text for s in x.context) for x in v}
              for v in splits.values()]
  assert not (contexts[0] & contexts[1] or contexts[0] & contexts[2]
              or contexts[1] & contexts[2])


# sha256 over repr(instance) of every instance of each paper config, in
# generation order: the paper configs' records stay byte-identical while
# other configs are added beside them (builder VERSION 1.2.0: its lexicon
# changed the spurt and sprinkle instances).
PAPER_DIGESTS = {
    ("ALT-ATL", "I"):
        "d97d3a294fbf6f3d0610e25e33ddaef3b19652d2aacbb1af7e67d183002c63dc",
    ("ALT-ATL", "II"):
        "e0b00307748aecfdc1df91b3097773410ce1c9339fc1a0ea16d5c97400f2ef72",
    ("ALT-ATL", "III"):
        "f3dcb414ba48cb4b27486e251f43c6248133dc56987dc12fd88628286949facf",
    ("ATL-ALT", "I"):
        "125a5be47c77f5219787850a304798fe0ce9e5d23271a3d1fd82b2a1e91eac35",
    ("ATL-ALT", "II"):
        "d36fac51b55c19fdf39731ed5926967f645d7eeaaabb5a7fd83f7157386c9af9",
    ("ATL-ALT", "III"):
        "01b9348766228649d0db7f923c0e7839d601bc9a585bccd7b1ccc428165cebdd",
}


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids="_type_".join)
def test_paper_configs_unchanged(generated, cfg):
  h = hashlib.sha256()
  for x in generated[cfg]:
    h.update(repr(x).encode())
  assert h.hexdigest() == PAPER_DIGESTS[cfg]
