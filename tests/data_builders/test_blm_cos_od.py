"""The CoS / OD BLM builder: every config's size, lint, answer rules, lexical
types, splits, byte-identical rebuilds and failure on a bad lexicon."""

import json
import pathlib
import shutil

import pytest
import tensorflow_datasets as tfds

from blm_jax.data import lint
from data_builders.blm_cos_od import blm_cos_od_dataset_builder as cos_od
from data_builders.blm_cos_od import generate
from data_builders.blm_cos_od import lexicon
from data_builders.blm_cos_od import templates
from data_builders.common import labels, loading as data
from data_builders.common.template import token_diff
from tests.builder_checks import fields_digest
from tests.cos_od_validity import offences

CONFIGS = [(c, lang, t) for c in templates.CLASSES
           for lang in templates.LANGUAGES for t in generate.LEXICAL_TYPES]

# 000 Figure 8 (CoS) and Figure 11 (OD), transcribed in the papers' notation.
PAPER_CONTEXT = {
    "cos": ["NP-Agent ActiveV NP-Theme P-NP", "NP-Agent ActiveV NP-Theme by-NP",
            "NP-Theme PassiveV by-NP-Agent P-NP",
            "NP-Theme PassiveV by-NP-Agent by-NP", "NP-Theme PassiveV P-NP",
            "NP-Theme PassiveV by-NP", "NP-Theme ActiveV P-NP"],
    "od": ["NP-Agent ActiveV NP-Theme P-NP", "NP-Agent ActiveV NP-Theme by-NP",
           "NP-Theme PassiveV by-NP-Agent P-NP",
           "NP-Theme PassiveV by-NP-Agent by-NP", "NP-Theme PassiveV P-NP",
           "NP-Theme PassiveV by-NP", "NP-Agent ActiveV P-NP"],
}
PAPER_ANSWERS = {
    "cos": {"CORRECT": "NP-Theme ActiveV by-NP",
            "I-INT": "NP-Agent ActiveV by-NP",
            "ER-PASS": "NP-Theme PassiveV by-NP-Agent",
            "IER-PASS": "NP-Agent PassiveV by-NP-Theme",
            "R-TRANS": "NP-Theme ActiveV NP-Agent",
            "IR-TRANS": "NP-Agent ActiveV NP-Theme",
            "E-WRBY": "NP-Theme ActiveV by-NP-Agent",
            "IE-WRBY": "NP-Agent ActiveV by-NP-Theme",
            # 002 appendix table, Italian: the intransitives with and
            # without si ("Pat SI Akt by-NP" is the CoS correct answer).
            "SI-PAT": "NP-Theme ActiveV by-NP",
            "SI-AG": "NP-Agent ActiveV by-NP"},
    "od": {"CORRECT": "NP-Agent ActiveV by-NP",
           "I-INT": "NP-Theme ActiveV by-NP",
           "ER-PASS": "NP-Agent PassiveV by-NP-Theme",
           "IER-PASS": "NP-Theme PassiveV by-NP-Agent",
           "R-TRANS": "NP-Agent ActiveV NP-Theme",
           "IR-TRANS": "NP-Theme ActiveV NP-Agent",
           "E-WRBY": "NP-Agent ActiveV by-NP-Theme",
           "IE-WRBY": "NP-Theme ActiveV by-NP-Agent",
           "SI-PAT": "NP-Theme ActiveV by-NP",
           "SI-AG": "NP-Agent ActiveV by-NP"},
}
# Which Italian candidates carry si: CoS keeps it in its intransitives (000
# footnote 3), OD has it only in the two si candidates (002 Figure 8).
IT_SI = {"cos": {"CORRECT", "I-INT", "E-WRBY", "IE-WRBY"},
         "od": {"SI-PAT", "SI-AG"}}


@pytest.fixture(scope="module")
def generated():
  return {cfg: generate.generate(*cfg) for cfg in CONFIGS}


def _paper(pat: str) -> str:
  """Our pattern notation -> the papers' (si is checked separately)."""
  out = []
  for tok in pat.split():
    head, _, arg = tok.partition("-")
    out.append({"NP": tok, "V": "PassiveV" if arg == "pass" else "ActiveV",
                "OBJ": f"NP-{arg}", "BY": f"by-NP-{arg}", "pNP": "P-NP",
                "byNP": "by-NP"}[head])
  return " ".join(out)


def _features(pat: str) -> dict[str, str]:
  toks = pat.split()
  return {"subj": toks[0], "voice": toks[1].split("-")[1],
          "si": str(toks[1].endswith("-si")), "tail": toks[2].split("-")[0]}


def _expected_changes(label: str, cls: str, language: str) -> set[str]:
  """Features a label's named rules change, read from the label itself.

  I = subject role, E = by + argument instead of the by-NP, R-PASS = voice,
  R-TRANS = a bare object instead of the by-NP, SI-<role> = the si choice
  (plus I when <role> is not the class's intransitive subject). Italian
  passives and transitives cannot keep the CoS si.
  """
  if label == "CORRECT":
    return set()
  prefix, kind = label.split("-")
  if prefix == "SI":
    subject = {"PAT": "Theme", "AG": "Agent"}[kind]
    out = {"si"}
    if subject != templates.intransitive_subject(cls):
      out.add("subj")
    return out
  out = set()
  if "I" in prefix:
    out.add("subj")
  if "E" in prefix:
    out.add("tail")
  if "R" in prefix:
    out.add({"PASS": "voice", "TRANS": "tail"}[kind])
    if templates.takes_si(cls, language):
      out.add("si")
  return out


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda cfg: generate.config_name(*cfg))
def test_size_shape_labels_and_strict_lint(generated, cfg):
  cls, language, _ = cfg
  xs = generated[cfg]
  assert len(xs) == 3000 and len({x.id for x in xs}) == 3000
  n_answers = 10 if language == "it" else 8
  inventory = set(labels.family_labels(cls)[:n_answers])
  for x in xs:
    assert len(x.context) == 7 and len(x.answers) == n_answers
    assert set(x.labels) == inventory
    assert x.labels[x.correct] == labels.correct_label(cls)
  report = lint.lint(xs)
  assert report.ok(strict=True), report.format(generate.config_name(*cfg))
  # The correct answer's position carries no information.
  positions = [x.correct for x in xs]
  assert len(set(positions)) == n_answers
  assert max(positions.count(i) for i in set(positions)) < 0.2 * len(xs)


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda cfg: generate.config_name(*cfg))
def test_patterns_follow_the_papers_and_break_exactly_the_named_rules(
    generated, cfg):
  cls, language, _ = cfg
  for x in generated[cfg][::50]:
    assert [_paper(s.pattern) for s in x.context] == PAPER_CONTEXT[cls]
    si_in_context = ["-si" in s.pattern for s in x.context]
    assert si_in_context == [False] * 6 + [templates.takes_si(cls, language)]
    by_label = {lab: s.pattern for lab, s in zip(x.labels, x.answers)}
    correct = by_label["CORRECT"]
    for lab, pat in by_label.items():
      assert _paper(pat) == PAPER_ANSWERS[cls][lab], (lab, pat)
      has_si = pat.split()[1].endswith("-si")
      assert has_si == (language == "it" and lab in IT_SI[cls]), (lab, pat)
      changed = {k for k, v in _features(pat).items()
                 if v != _features(correct)[k]}
      assert changed == _expected_changes(lab, cls, language), (lab, pat)
      # The same, read from the raw token diff: the subject token differs
      # exactly when the label names rule I.
      diff = token_diff(correct, pat)
      assert bool(diff) == (lab != "CORRECT")
      subject_changed = pat.split()[0] != correct.split()[0]
      assert subject_changed == ("subj" in changed), (lab, diff)


def _lemma_index(cls, language):
  """Every word form of the class's verbs -> its lemma (unambiguous)."""
  index = {}
  for v in lexicon.load(cls, language).verbs:
    words = set(v.forms) | {v.lemma}
    if language == "it":
      words |= {v.forms[8][:-1] + e for e in "oaie"}
      words.add(v.lemma[:-1] + "si")
    for w in words:
      assert index.setdefault(w, v.lemma) == v.lemma, (w, v.lemma)
  return index


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda cfg: generate.config_name(*cfg))
def test_lexical_types(generated, cfg):
  cls, language, lexical_type = cfg
  index = _lemma_index(cls, language)
  lemma_of = lambda s: index[s.chunks[1].split()[-1]]
  all_verbs = set()
  for x in generated[cfg][::25]:
    ctx = [lemma_of(s) for s in x.context]
    ans = [lemma_of(s) for s in x.answers]
    subjects = {s.chunks[0].lower() for s in x.context}
    all_verbs |= set(ctx)
    if lexical_type == "III":
      assert len(set(ctx)) == 7 and len(set(ans)) == len(ans)
    else:
      assert set(ctx) == set(ans) and len(set(ctx)) == 1
    if lexical_type == "I":
      # One agent and one theme throughout, answers included.
      assert len(subjects) == 2
      assert {s.chunks[0].lower() for s in x.answers} == subjects
      assert len({x.context[0].chunks[-2], x.context[2].chunks[-2],
                  x.context[4].chunks[-2], x.context[6].chunks[-2]}) == 1
    else:
      assert len(subjects) >= 2
  assert len(all_verbs) == 30


def _build(data_dir, name=None, config=None):
  if config is not None:
    b = cos_od.Builder(config=config, data_dir=str(data_dir),
                       file_format="array_record")
  else:
    b = tfds.builder(f"blm_cos_od/{name}", data_dir=str(data_dir),
                     file_format="array_record")
  b.download_and_prepare()
  return b


@pytest.mark.slow
def test_build_splits_90_10_with_dev_slice_and_no_leak(tmp_path, generated):
  name = "od_it_type_II"
  _build(tmp_path, name)
  splits = {s: data.load_instances(f"blm_cos_od/{name}", s, str(tmp_path))
            for s in ("train", "dev", "test")}
  assert {k: len(v) for k, v in splits.items()} == {
      "train": 2160, "dev": 540, "test": 300}
  contexts = [{tuple(s.text for s in x.context) for x in v}
              for v in splits.values()]
  ids = [{x.id for x in v} for v in splits.values()]
  for i in range(3):
    for j in range(i + 1, 3):
      assert not contexts[i] & contexts[j] and not ids[i] & ids[j]
  everything = {x.id: x for x in generated["od", "it", "II"]}
  assert set().union(*ids) == set(everything)
  for v in splits.values():
    for x in v[::20]:
      assert x == everything[x.id]  # Round trip, patterns and chunks kept.


@pytest.mark.slow
def test_rebuild_is_byte_identical(tmp_path):
  # A reduced copy of a config: the same code path, a tenth of the records.
  config = cos_od.CosOdConfig(name="cos_it_type_III_small", verb_class="cos",
                              language="it", lexical_type="III",
                              num_instances=300)
  dirs = [_build(tmp_path / d, config=config).data_dir for d in "ab"]
  files = [sorted(pathlib.Path(d).glob("*array_record*")) for d in dirs]
  assert len(files[0]) == 3
  assert [p.name for p in files[0]] == [p.name for p in files[1]]
  assert [p.read_bytes() for p in files[0]] == [
      p.read_bytes() for p in files[1]]


def test_every_config_is_registered():
  names = [c.name for c in cos_od.Builder.BUILDER_CONFIGS
           if c.design == "paper"]
  assert names == [generate.config_name(*cfg) for cfg in CONFIGS]
  assert names[0] == "cos_en_type_I" and names[-1] == "od_it_type_III"


# sha256 of every record's id, texts, patterns, chunks, labels and correct
# index, at VERSION 1.2.0 (issue 34's lexicon fixes; the English ones at
# their config version 1.3.0, whose lexicon texts changed): the paper configs
# stay byte-identical while other configs are added beside them.
PAPER_DIGESTS = {
    "cos_en_type_I": "129d2c0ce61292c4",
    "cos_en_type_II": "56be6381401c363f",
    "cos_en_type_III": "70df0387537767e4",
    "cos_it_type_I": "80f7ee4bcbe537fd",
    "cos_it_type_II": "2cb73b92f896bb8f",
    "cos_it_type_III": "c0640afd0282d8bb",
    "od_en_type_I": "67feb1eb2b6b4034",
    "od_en_type_II": "920f27ba75c9d1d9",
    "od_en_type_III": "0b94201d2a6eb06a",
    "od_it_type_I": "04c2000976a20421",
    "od_it_type_II": "1b94d5ed55ebffc3",
    "od_it_type_III": "f6c0c571bfaca7fe",
}


@pytest.mark.slow
def test_paper_configs_are_unchanged(generated):
  assert str(cos_od.Builder.VERSION) == "1.2.0"
  got = {generate.config_name(*cfg): fields_digest(xs)
         for cfg, xs in generated.items()}
  assert got == PAPER_DIGESTS


@pytest.mark.slow
def test_bad_lexicon_fails_the_build_and_leaves_nothing(tmp_path, monkeypatch):
  lex_dir = tmp_path / "lexicon"
  shutil.copytree(lexicon.LEXICON_DIR, lex_dir)
  bad = lex_dir / "en" / "od.json"
  raw = json.loads(bad.read_text("utf-8"))
  del raw["verbs"][7]["by_nps"]
  bad.write_text(json.dumps(raw), encoding="utf-8")
  monkeypatch.setattr(lexicon, "LEXICON_DIR", lex_dir)
  data_dir = tmp_path / "data"
  with pytest.raises(lexicon.LexiconError) as e:
    _build(data_dir, "od_en_type_I")
  assert str(bad) in str(e.value)
  assert "verb entry #7 ('iron')" in str(e.value)
  assert "missing slot 'by_nps'" in str(e.value)
  assert not list(data_dir.rglob("dataset_info.json"))
  assert not list(data_dir.rglob("*array_record*"))
  # Nothing that a later read would take for a built dataset.
  assert not tfds.builder("blm_cos_od/od_en_type_I", data_dir=str(data_dir),
                          file_format="array_record").is_prepared()


# --- label validity --------------------------------------------------------

def _words(text: str) -> set[str]:
  return set(text.lower().rstrip(".").replace("'", "' ").split())


def _verb_words(entry) -> set[str]:
  """Every word form of an Italian verb the realiser can produce."""
  stem = entry.forms[8][:-1]
  return (set(entry.forms) | {stem + e for e in "oaie"}
          | {entry.lemma, entry.lemma[:-1] + "si"})


@pytest.mark.slow
@pytest.mark.parametrize("t", generate.LEXICAL_TYPES)
def test_italian_cos_uses_only_obligatory_si_verbs(generated, t):
  # With migliorare, cuocere, friggere (no si or optional si) the "CORRECT"
  # answer "I risultati si miglioreranno" was odd and SI-PAT grammatical.
  lex = lexicon.load("cos", "it")
  banned = set().union(*(_verb_words(v) for v in lex.excluded))
  assert {"miglioreranno", "cuocersi", "friggerà"} <= banned
  for inst in generated["cos", "it", t]:
    for s in inst.context + inst.answers:
      assert not _words(s.text) & banned, (inst.id, s.text)


# The issue's examples, plus whatever the lexicons mark agentive.
AGENT_IMPLYING = {"en": {"by hand", "by design", "by ear", "by default"},
                  "it": {"da manuale"}}


@pytest.mark.slow
@pytest.mark.parametrize("language", templates.LANGUAGES)
def test_cos_anticausatives_have_no_agent_implying_adverbial(generated,
                                                             language):
  marked = {a.text for c in templates.CLASSES
            for a in lexicon.load(c, language).adverbials if a.agentive}
  bad = AGENT_IMPLYING[language] | marked
  for t in generate.LEXICAL_TYPES:
    for inst in generated["cos", language, t]:
      # Context sentence 7 and the correct answer are the anticausatives.
      for s in (inst.context[6], inst.correct_answer):
        assert not any(s.text.rstrip(".").endswith(" " + b) for b in bad), (
            inst.id, s.text)


@pytest.mark.slow
def test_no_english_present_perfect_with_a_time_point(generated):
  # "The gate has closed at midnight." / "The peas have defrosted by morning."
  points = {"at midnight", "by morning", "by noon", "at dawn"} | {
      a.text for c in templates.CLASSES
      for a in lexicon.load(c, "en").adverbials if a.time_point}
  perfect = 0
  for c in templates.CLASSES:
    for t in generate.LEXICAL_TYPES:
      for inst in generated[c, "en", t]:
        for s in inst.context + inst.answers:
          words = s.text.split()
          if "has" in words or "have" in words:
            perfect += 1
            assert not any(s.text.rstrip(".").endswith(" " + p)
                           for p in points), (inst.id, s.text)
  assert perfect > 10000  # The present perfect is still there.


# --- issue 34: by habit, an oath breaking with a crash, by/da + an argument
# read as a place or source ("The tailor sews by the curtains") ------------

@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda cfg: generate.config_name(*cfg))
def test_issue34_classes_scan_to_zero(generated, cfg):
  # Every split of every type: the full config (3000 instances).
  assert offences(generated[cfg], cfg[1]) == []


def test_issue34_classes_are_gone_from_the_lexicons():
  # What no generated sentence can then show, in any design (ctx and seq
  # draw their words from the same lexicons).
  for c in templates.CLASSES:
    for lang in templates.LANGUAGES:
      lex = lexicon.load(c, lang)
      words = " ".join(
          n.text for v in lex.verbs
          for n in (*v.agents, *v.themes)) + " " + " ".join(
              a.text for a in lex.adverbials)
      assert "by habit" not in words and "oath" not in words
      for v in lex.verbs:
        assert any(n.text not in v.landmarks for n in v.agents)
        assert any(n.text not in v.landmarks for n in v.themes)


def test_landmarks_are_checked(tmp_path):
  path = tmp_path / "od.json"
  raw = json.loads(lexicon.lexicon_path("od", "en").read_text("utf-8"))
  raw["landmarks"] = ["the table"]
  path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
  with pytest.raises(lexicon.LexiconError,
                     match="landmark\\(s\\) no verb has as agent or theme: "
                           "\\['the table'\\]") as e:
    lexicon.load("od", "en", path)
  assert str(path) in str(e.value)
  raw["landmarks"] = [n.split("|")[0] for n in raw["verbs"][0]["themes"]]
  path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
  with pytest.raises(lexicon.LexiconError,
                     match="verb entry #0 \\('clean'\\): every one of its "
                           "themes is a landmark"):
    lexicon.load("od", "en", path)


def test_no_label_says_grammar():
  # Issue 34 item 4: a well-formed candidate that breaks the pattern is an R
  # label, never "Grammar"; no label of the family says so.
  for fam in ("cos", "od", "cos_ctx", "od_ctx", "cos_seq", "od_seq"):
    assert not any("grammar" in lab.lower()
                   for lab in labels.family_labels(fam))
