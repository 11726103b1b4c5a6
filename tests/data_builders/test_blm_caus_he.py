"""The CausH builder (002 sec. 4.3, Figure 11): Hebrew morphology on known
forms, the curated roots, the synthetic and natural variants, the CoNLL-U
reader on fixtures the tests write, and errors naming file, line and field."""

import collections
import pathlib

import pytest
import tensorflow_datasets as tfds

from blm_jax.data import lint
from data_builders.blm_caus_he import blm_caus_he_dataset_builder as caus_he
from data_builders.blm_caus_he import conllu_reader
from data_builders.blm_caus_he import generate
from data_builders.blm_caus_he import lexicon
from data_builders.blm_caus_he import morph
from data_builders.blm_caus_he import templates
from data_builders.common import labels, loading as data

# Known forms, written by hand (unpointed plene spelling), in
# morph.INFLECTIONS order: past 3ms 3fs 3p, present ms fs mp fp,
# future 3ms 3fs 3mp.
KNOWN = {
    ("כתב", "PAAL", "o"): "כתב כתבה כתבו כותב כותבת כותבים כותבות יכתוב "
                          "תכתוב יכתבו",
    ("כתב", "NIFAL", "o"): "נכתב נכתבה נכתבו נכתב נכתבת נכתבים נכתבות ייכתב "
                           "תיכתב ייכתבו",
    ("כתב", "HIFIL", "o"): "הכתיב הכתיבה הכתיבו מכתיב מכתיבה מכתיבים "
                           "מכתיבות יכתיב תכתיב יכתיבו",
    ("כתב", "HUFAL", "o"): "הוכתב הוכתבה הוכתבו מוכתב מוכתבת מוכתבים "
                           "מוכתבות יוכתב תוכתב יוכתבו",
    ("לבש", "PAAL", "a"): "לבש לבשה לבשו לובש לובשת לובשים לובשות ילבש "
                          "תלבש ילבשו",
    ("רשמ", "PAAL", "o"): "רשם רשמה רשמו רושם רושמת רושמים רושמות ירשום "
                          "תרשום ירשמו",
    ("קטנ", "HIFIL", "o"): "הקטין הקטינה הקטינו מקטין מקטינה מקטינים "
                           "מקטינות יקטין תקטין יקטינו",
    ("שמע", "HUFAL", "a"): "הושמע הושמעה הושמעו מושמע מושמעת מושמעים "
                           "מושמעות יושמע תושמע יושמעו",
    ("דרכ", "NIFAL", "o"): "נדרך נדרכה נדרכו נדרך נדרכת נדרכים נדרכות ייִדרך"
                           .replace("ִ", "") + " תידרך ייִדרכו".replace("ִ", ""),
}


@pytest.mark.parametrize("key", KNOWN, ids=lambda k: f"{k[0]}-{k[1]}")
def test_known_forms(key):
  root, binyan, vowel = key
  assert list(morph.all_forms(root, binyan, vowel).values()) == \
      KNOWN[key].split()


@pytest.mark.parametrize("root,why", [
    ("נפל", "assimilating nun"), ("קומ", "second radical"),
    ("בנה", "third radical"), ("סבב", "geminate"), ("אכל", "guttural"),
    ("כתבה", "three consonants"), ("כתם", "final"),
])
def test_weak_roots_are_refused_with_the_reason(root, why):
  assert why in morph.check_root(root)
  with pytest.raises(ValueError, match=why):
    morph.form(root, "PAAL", "past", "3ms")


def test_curated_roots():
  roots = lexicon.load()
  assert len(roots) >= 70
  per = collections.Counter(b for r in roots for b in r.binyanim)
  assert min(per.values()) >= 40
  # Every root's written forms were re-derived by the loader; spot-check.
  kt = next(r for r in roots if r.root == "כתב")
  assert kt.binyanim == morph.BINYANIM
  assert kt.form("HUFAL", "present", "fp") == "מוכתבות"


@pytest.mark.parametrize("edit,field", [
    (("הכתיב", "הכתב"), "field 'HIFIL': 'הכתב' is not the HIFIL past 3ms"),
    (("כ.ת.ב\to", "כ.ת.ב\tx"), "field 'paal_future'"),
    (("כ.ת.ב\t", "נ.פ.ל\t"), "field 'root': 'נ.פ.ל'"),
])
def test_bad_lexicon_names_file_line_and_field(tmp_path, edit, field):
  src = lexicon.LEXICON_DIR / "roots.tsv"
  lines = src.read_text("utf-8").splitlines()
  n = next(i for i, l in enumerate(lines, 1) if l.startswith("כ.ת.ב\t"))
  lines[n - 1] = lines[n - 1].replace(*edit)
  path = tmp_path / "roots.tsv"
  path.write_text("\n".join(lines) + "\n", "utf-8")
  with pytest.raises(lexicon.LexiconError) as e:
    lexicon.load(path)
  assert f"{path}:{n}: {field}" in str(e.value)


@pytest.fixture(scope="module")
def synthetic():
  return generate.synthetic()


def _form_index():
  """form -> {(root, binyan)} over every curated root and inflection."""
  index = collections.defaultdict(set)
  for r in lexicon.load():
    for b in r.binyanim:
      for infl in morph.INFLECTIONS:
        index[r.form(b, *infl)].add((r.root, b))
  return index


@pytest.mark.slow
def test_synthetic_size_labels_lint_and_figure_11(synthetic):
  xs = synthetic
  assert len(xs) == 8000 and len({x.id for x in xs}) == 8000
  assert collections.Counter(x.subset for x in xs) == {
      b: 2000 for b in morph.BINYANIM}
  report = lint.lint(xs)
  assert report.ok(strict=True), report.format("synthetic")
  positions = collections.Counter(x.correct for x in xs)
  assert len(positions) == 4 and max(positions.values()) < 0.3 * len(xs)
  index = _form_index()
  for x in xs[::40]:
    target = x.subset
    binyan = lambda s: s.pattern.split("-")[1]
    assert [binyan(s) for s in x.context] == \
        list(templates.context_binyanim(target))
    # Figure 11's columns: three complete pairs in canonical order.
    assert [binyan(s) for s in x.context][::2][:3] == [
        b for b in morph.BINYANIM if b != target]
    for lab, s in zip(x.labels, x.answers):
      assert lab == ("CORRECT" if binyan(s) == target else binyan(s))
    assert set(x.labels) <= set(labels.family_labels("caus_he"))
    # The texts really are forms of the binyan the pattern names, and the
    # eleven sentences use eleven different roots (MaxLex).
    roots = []
    for s in x.context + x.answers:
      hits = {r for r, b in index[s.text] if b == binyan(s)}
      assert hits, (s.text, s.pattern)
      roots.append(hits)
    assert len(set().union(*roots)) >= 11
    assert all(len(h) == 1 for h in roots)
    assert len({next(iter(h)) for h in roots}) == 11


def _build(data_dir, config, manual_dir=None):
  b = caus_he.Builder(config=config, data_dir=str(data_dir),
                      file_format="array_record")
  dl = tfds.download.DownloadConfig(manual_dir=str(manual_dir)) \
      if manual_dir else None
  b.download_and_prepare(download_config=dl)
  return b


def _splits(b):
  out = {}
  for s in b.info.splits:
    src = b.as_data_source(split=s)
    from data_builders.common.schema import BLMInstance
    out[s] = [BLMInstance.from_example(r)
              for r in src.__getitems__(list(range(len(src))))]
  return out


@pytest.mark.slow
def test_synthetic_build_splits_and_no_leak(tmp_path):
  config = caus_he.CausHeConfig(name="synthetic_small", variant="synthetic",
                                num_train=900, num_test=100)
  parts = _splits(_build(tmp_path, config))
  assert {k: len(v) for k, v in parts.items()} == {
      "train": 720, "dev": 180, "test": 100}
  ctx = [{tuple(s.text for s in x.context) for x in v}
         for v in parts.values()]
  assert not (ctx[0] & ctx[1] or ctx[0] & ctx[2] or ctx[1] & ctx[2])


def test_registered_configs_and_short_names():
  assert [c.name for c in caus_he.Builder.BUILDER_CONFIGS] == [
      "synthetic_MaxLex", "natural_MaxLex"]
  from configs import common
  c = common.base("ffnn", "caus_he")
  assert c.data.name.format("MaxLex") == "blm_caus_he/synthetic_MaxLex"
  assert tuple(c.data.train_types) == tuple(c.data.test_types) == ("MaxLex",)


# --- CoNLL-U ------------------------------------------------------------------

SUBJECTS = ("הילד", "המורה", "הספר", "החלון", "הוועדה", "העיר", "הנהג",
            "הבית", "החדר", "השיר")


def _conllu_sentence(k, verb, lemma, binyan, upos="VERB", mwt=False):
  subj = SUBJECTS[k % len(SUBJECTS)]
  lines = [f"# sent_id = fx-{k}"]
  if not mwt:
    lines.append(f"# text = {subj} {verb} היום.")
  lines += [
      f"1\t{subj}\t{subj[1:]}\tNOUN\tNOUN\tDefinite=Def\t2\tnsubj\t_\t_",
      f"2\t{verb}\t{lemma}\t{upos}\t{upos}\tHebBinyan={binyan}|Tense=Past"
      f"\t0\troot\t_\t_",
  ]
  if mwt:  # "בבית" = ב + הבית, text rebuilt from the surface tokens.
    lines += ["3-4\tבבית\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No",
              "3\tב\tב\tADP\tADP\t_\t4\tcase\t_\t_",
              "4\tהבית\tבית\tNOUN\tNOUN\tDefinite=Def\t2\tobl\t_\t_"]
  else:
    lines.append("3\tהיום\tהיום\tADV\tADV\t_\t2\tadvmod\t_\tSpaceAfter=No")
  lines.append(f"{5 if mwt else 4}\t.\t.\tPUNCT\tPUNCT\t_\t2\tpunct\t_\t_")
  return "\n".join(lines)


def write_treebank(folder: pathlib.Path, per_binyan: int = 8) -> pathlib.Path:
  """A small UD-style treebank: `per_binyan` sentences per binyan, each
  with its own verb lemma, plus sentences the extractor must skip."""
  folder.mkdir(parents=True, exist_ok=True)
  roots = lexicon.load()
  blocks, k, used = [], 0, set()
  for b in morph.BINYANIM:
    # Each root in one binyan only, as MaxLex needs 11 different lemmas.
    mine = [r for r in roots if b in r.binyanim and r.root not in used]
    used |= {r.root for r in mine[:per_binyan]}
    for r in mine[:per_binyan]:
      blocks.append(_conllu_sentence(k, r.form(b, "past", "3ms"), r.root, b,
                                     mwt=k % 5 == 0))
      k += 1
  blocks.append(_conllu_sentence(k, "דיבר", "דבר", "PIEL"))  # not selected
  blocks.append(_conllu_sentence(k + 1, "כתב", "כתב", "PAAL", upos="NOUN"))
  path = folder / "he_fixture-ud-train.conllu"
  path.write_text("\n\n".join(blocks) + "\n\n", "utf-8")
  return path


def test_reader_reads_text_tokens_and_multiword_tokens(tmp_path):
  path = write_treebank(tmp_path)
  sents = conllu_reader.read(path)
  assert len(sents) == 4 * 8 + 2
  s0 = sents[0]  # multiword token, no "# text": rebuilt from the surface
  assert s0.text == f"{SUBJECTS[0]} כתב בבית."
  assert s0.root()["feats"]["HebBinyan"] == "PAAL"
  assert sents[1].text == f"{SUBJECTS[1]} {sents[1].root()['form']} היום."
  pool = generate.read_pool([path])
  assert {b: len(v) for b, v in pool.items()} == {b: 8 for b in
                                                  morph.BINYANIM}


@pytest.mark.parametrize("old,new,field", [
    ("\t0\troot\t", "\tx\troot\t", "field 'HEAD'"),
    ("\t2\tnsubj\t_\t_", "\t2\tnsubj\t_", "9 tab-separated fields"),
    ("HebBinyan=PAAL|Tense=Past", "HebBinyan|Tense=Past", "field 'FEATS'"),
    ("\t2\tnsubj\t", "\t9\tnsubj\t", "field 'HEAD': 9, expected 0..5"),
])
def test_malformed_conllu_names_file_line_and_field(tmp_path, old, new,
                                                    field):
  path = write_treebank(tmp_path)
  lines = path.read_text("utf-8").splitlines()
  n = next(i for i, l in enumerate(lines, 1) if old in l and "\tNOUN" in l
           or old in l and "HebBinyan=PAAL" in l)
  lines[n - 1] = lines[n - 1].replace(old, new, 1)
  path.write_text("\n".join(lines) + "\n", "utf-8")
  with pytest.raises(conllu_reader.CoNLLUError) as e:
    conllu_reader.read(path)
  assert f"{path}:{n}: {field}" in str(e.value)


def test_missing_conllu_file_is_named(tmp_path):
  with pytest.raises(conllu_reader.CoNLLUError, match="no such CoNLL-U"):
    conllu_reader.read(tmp_path / "nope.conllu")


def _natural_config():
  return caus_he.CausHeConfig(name="natural_small", variant="natural",
                              num_train=200, num_test=40)


@pytest.mark.slow
def test_natural_build_is_sentence_disjoint(tmp_path):
  manual = tmp_path / "ud"
  write_treebank(manual)
  parts = _splits(_build(tmp_path / "data", _natural_config(), manual))
  assert {k: len(v) for k, v in parts.items()} == {
      "train": 160, "dev": 40, "test": 40}
  texts = {k: {s.text for x in v for s in x.context + x.answers}
           for k, v in parts.items()}
  assert not texts["test"] & (texts["train"] | texts["dev"])
  report = lint.lint([x for v in parts.values() for x in v])
  assert report.ok(strict=True), report.format("natural")
  for x in parts["test"]:
    binyan = lambda s: s.pattern.split("-")[1]
    assert [binyan(s) for s in x.context] == \
        list(templates.context_binyanim(x.subset))
    assert binyan(x.answers[x.correct]) == x.subset


@pytest.mark.slow
def test_natural_without_treebank_says_what_to_do(tmp_path):
  empty = tmp_path / "empty"
  empty.mkdir()
  (empty / "README.txt").write_text("not a treebank")
  with pytest.raises(FileNotFoundError) as e:
    _build(tmp_path / "data", _natural_config(), empty)
  assert f"{empty}: no .conllu file" in str(e.value)
  assert "UD_Hebrew-HTB" in str(e.value)
  # No folder at all: TFDS's own check, with our instructions.
  with pytest.raises(AssertionError, match="UD_Hebrew-HTB"):
    _build(tmp_path / "data2", _natural_config(), tmp_path / "missing")
  assert not list(tmp_path.rglob("*array_record*"))


@pytest.mark.slow
def test_natural_pool_without_enough_lemmas_fails_clearly(tmp_path):
  manual = tmp_path / "ud"
  path = write_treebank(manual)
  roots = [r for r in lexicon.load() if len(r.binyanim) == 4][:8]
  blocks = [_conllu_sentence(k, r.form(b, "past", "3ms"), r.root, b)
            for b in morph.BINYANIM for k, r in enumerate(roots)]
  path.write_text("\n\n".join(blocks) + "\n", "utf-8")
  with pytest.raises(ValueError, match="11 different main-verb lemmas"):
    _build(tmp_path / "data", _natural_config(), manual)
  assert not list(tmp_path.rglob("*array_record*"))


@pytest.mark.slow
def test_natural_pool_too_small_names_the_binyan(tmp_path):
  manual = tmp_path / "ud"
  write_treebank(manual, per_binyan=5)
  with pytest.raises(ValueError, match="5 sentence.*HebBinyan=PAAL"):
    _build(tmp_path / "data", _natural_config(), manual)
