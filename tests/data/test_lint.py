"""The BLM linter: each rule on a crafted instance, the report, the CLI."""

import dataclasses
import pathlib
import random
import subprocess
import sys

import pytest
import tensorflow_datasets as tfds

from blm_jax.data import lint
from blm_jax.data.context_free import answers_only
from data_builders.common.schema import BLMInstance, Sentence
from tests.release_fixtures import release_rows, write_release
from blm_jax.cli import lint as lint_cli


def _clean(i=0, **changes) -> BLMInstance:
  x = BLMInstance(
      id=f"x{i}", family="agreement", language="en", lexical_type="I",
      subset="",
      context=tuple(Sentence(f"context {i} {k} .") for k in range(3)),
      answers=(Sentence(f"wrong {i} a ."), Sentence(f"right {i} ."),
               Sentence(f"wrong {i} b .")),
      correct=1, labels=("AEV", "Corr", "WN1"))
  return dataclasses.replace(x, raw_labels=(), **changes)


def _fired(instances):
  report = lint.lint(instances)
  return {k: n for k, n in report.counts.items() if n}, report


def test_clean_instances_pass_strict():
  fired, report = _fired([_clean(i) for i in range(5)])
  assert fired == {}
  assert report.ok(strict=True) and report.n_instances == 5


def test_one_correct():
  two = _clean(labels=("Corr", "Corr", "WN1"))
  moved = _clean(correct=0)  # Marked correct, but labelled AEV.
  fired, report = _fired([two, moved, _clean(2)])
  assert fired == {"one_correct": 2}
  messages = [f.message for f in report.examples["one_correct"]]
  assert "2 candidates labelled 'Corr'" in messages[0]
  assert ("candidate 1 is marked correct but candidate 2 is labelled 'Corr'"
          in messages[1])


def test_duplicate_candidate():
  x = _clean(answers=(Sentence("same ."), Sentence("right ."),
                      Sentence("same  .")))
  fired, report = _fired([x])
  assert fired == {"duplicate_candidate": 1}
  assert report.errors == {"duplicate_candidate": 1}
  assert ("candidates 1 (AEV) and 3 (WN1) are both"
          in report.examples["duplicate_candidate"][0].message)


def test_empty_sentence():
  x = _clean(context=(Sentence("a ."), Sentence("  "), Sentence("c .")))
  y = _clean(answers=(Sentence(""), Sentence("right ."), Sentence("b .")))
  fired, report = _fired([x, y])
  assert fired == {"empty_sentence": 2}
  assert [f.message for f in report.examples["empty_sentence"]] == [
      "context sentence 2 is empty", "candidate 1 (AEV) is empty"]


def test_correct_in_context():
  x = _clean()
  x = dataclasses.replace(x, context=x.context[:2] + (x.answers[1],))
  fired, report = _fired([x])
  assert fired == {"correct_in_context": 1}
  assert "is context sentence 3" in report.examples[
      "correct_in_context"][0].message


def test_answer_count_constant_within_a_subset():
  short = _clean(9, answers=(Sentence("w ."), Sentence("r .")),
                 labels=("AEV", "Corr"))
  other_subset = dataclasses.replace(short, id="y", lexical_type="II")
  fired, report = _fired([_clean(i) for i in range(3)] + [short, other_subset])
  assert fired == {"answer_count": 1}
  finding = report.examples["answer_count"][0]
  assert finding.instance_id == "x9"
  assert ("2 candidates where subset (agreement, language en, subset "
          "unknown, type I) mostly has 3") in (
      finding.message)


def test_unknown_label_and_unknown_family_are_info_not_errors():
  bad_label = _clean(labels=("AEV", "Corr", "WN7"))
  bad_family = _clean(family="riddles")
  fired, report = _fired([bad_label, bad_family])
  assert fired == {"unknown_label": 2}
  assert report.infos == {"unknown_label": 2} and not report.errors
  assert report.ok(strict=True)
  messages = [f.message for f in report.examples["unknown_label"]]
  assert "labels ['WN7'] are not in the agreement inventory" in messages[0]
  assert messages[1] == ("labels ['AEV', 'Corr', 'WN1'] of family "
                         "'riddles', which lint does not know: not checked "
                         "against an inventory")
  assert "INFO    unknown_label: 2/2" in report.format()


def _own_jsonl(folder, n=12, labels=("N2_alter", "Corr", "WN1")):
  import json
  folder.mkdir(parents=True, exist_ok=True)
  lines = [{"id": f"own-{i}", "context": [f"The cat {i} sleeps .",
                                          f"The cats {i} sleep ."],
            "answers": [f"The cat {i} sleep .", f"The cat {i} sleeps again .",
                        f"The cats {i} sleeps ."], "correct": 1,
            "labels": list(labels)} for i in range(n)]
  (folder / "mine.jsonl").write_text("".join(json.dumps(x) + "\n"
                                             for x in lines))
  return folder


def test_cli_on_valid_own_jsonl_exits_0(tmp_path, capsys):
  """docs/tutorials/own-data.md's lint, by path and by TFDS name: own labels are
  info, never a failure."""
  own = _own_jsonl(tmp_path / "own")
  assert lint_cli.main([str(own)]) == 0
  assert lint_cli.main([str(own / "mine.jsonl"), "--strict"]) == 0
  assert lint_cli.main(["blm_jsonl/folder", "--data_dir",
                        str(tmp_path / "data"), "--manual_dir", str(own),
                        "--strict"]) == 0
  out = capsys.readouterr().out
  assert "INFO    unknown_label: 12/12" in out
  assert "ERROR" not in out
  assert "info {'unknown_label': 12} -> OK (--strict)" in out


def test_cli_says_once_that_a_file_varies_its_candidate_count(tmp_path,
                                                              capsys):
  import json
  path = tmp_path / "vary.jsonl"
  lines = [{"id": f"v{i}", "context": [f"c {i} ."],
            "answers": [f"a {i} {k} ." for k in range(3 if i % 2 else 4)],
            "correct": 0} for i in range(6)]
  path.write_text("".join(json.dumps(x) + "\n" for x in lines))
  assert lint_cli.main([str(path)]) == 0
  out = capsys.readouterr().out
  assert out.count("the number of candidates varies") == 1
  assert "WARNING answer_count" in out


def test_every_family_of_the_project_is_accepted():
  from data_builders.common import labels

  for family, inventory in labels.FAMILY_LABELS.items():
    x = BLMInstance(
        id=family, family=family, language="en", lexical_type="I", subset="",
        context=(Sentence("c ."),),
        answers=tuple(Sentence(f"{lab} .") for lab in inventory),
        correct=0, labels=inventory)
    assert lint.lint([x]).ok(strict=True), family


def test_copy_cue_is_a_warning():
  x = _clean()
  x = dataclasses.replace(x, answers=(x.context[2],) + x.answers[1:])
  fired, report = _fired([x])
  assert fired == {"copy_cue": 1}
  assert report.errors == {} and report.warnings == {"copy_cue": 1}
  assert report.ok() and not report.ok(strict=True)
  assert ("wrong candidate 1 (AEV) repeats context sentence 3" in
          report.examples["copy_cue"][0].message)


def test_examples_are_capped_and_counts_are_per_instance():
  dupes = [_clean(i, answers=(Sentence("s ."), Sentence("r ."),
                              Sentence("s ."))) for i in range(10)]
  report = lint.lint(dupes)
  assert report.counts["duplicate_candidate"] == 10
  assert len(report.examples["duplicate_candidate"]) == lint.MAX_EXAMPLES
  text = report.format("dupes")
  assert text.startswith("dupes: 10 instances")
  assert "ERROR   duplicate_candidate: 10/10" in text
  assert "ok      copy_cue: 0/10" in text


# -- Command line -------------------------------------------------------------


def _release(tmp_path, name, edit=None):
  rows = release_rows(5)
  if edit:
    edit(rows)
  return str(write_release(tmp_path / name, rows))


def _copy_cue(rows):
  for r in rows:
    r["Answer_4"] = r["Sent_2"]


def _duplicate(rows):
  rows[1]["Answer_3"] = rows[1]["Answer_2"]


def test_cli_exit_codes(tmp_path, capsys):
  clean = _release(tmp_path, "clean.tsv")
  cue = _release(tmp_path / "cue", "cue.tsv", _copy_cue)
  dup = _release(tmp_path / "dup", "dup.tsv", _duplicate)
  assert lint_cli.main([clean]) == 0
  assert lint_cli.main([clean, "--strict"]) == 0
  assert lint_cli.main([cue]) == 0
  assert lint_cli.main([cue, "--strict"]) == 1
  assert lint_cli.main([dup]) == 1
  out = capsys.readouterr().out
  assert "WARNING copy_cue: 5/5" in out
  assert "ERROR   duplicate_candidate: 1/5" in out
  assert "-> FAIL (--strict)" in out


def test_cli_on_a_folder_reports_each_file(tmp_path, capsys):
  _release(tmp_path / "a", "one.tsv")
  _release(tmp_path / "b", "two.tsv", _duplicate)
  assert lint_cli.main([str(tmp_path)]) == 1
  out = capsys.readouterr().out
  assert "a/one.tsv: 5 instances" in out and "b/two.tsv: 5 instances" in out
  assert "total: 10 instances; errors {'duplicate_candidate': 1}" in out


def test_cli_unreadable_input_exits_2(tmp_path, capsys):
  bad = tmp_path / "bad.tsv"
  bad.write_bytes(b"ID\tSent_1\n0\t\xff\n")
  assert lint_cli.main([str(bad)]) == 2
  assert "bad.tsv, line 2, column 2 ('Sent_1')" in capsys.readouterr().err


def test_cli_on_a_tfds_name(tmp_path, capsys):
  import data_builders  # noqa: F401

  release = tmp_path / "release"
  _release(release, "blm.tsv", _copy_cue)
  args = ["blm_published/folder", "--data_dir", str(tmp_path / "data"),
          "--manual_dir", str(release)]
  assert lint_cli.main(args) == 0
  assert lint_cli.main(args + ["--strict"]) == 1
  out = capsys.readouterr().out
  assert "blm_published/folder[full]: 5 instances" in out
  assert tfds.builder("blm_published/folder",
                      data_dir=str(tmp_path / "data")).is_prepared()


@pytest.mark.slow
def test_cli_module_entry_point(tmp_path):
  dup = _release(tmp_path, "dup.tsv", _duplicate)
  result = subprocess.run([sys.executable, "-m", "blm_jax.cli.lint", dup],
                          capture_output=True, text=True, check=False,
                          cwd=pathlib.Path(__file__).resolve().parents[2])
  assert result.returncode == 1, result.stderr
  assert "duplicate_candidate: 1/5" in result.stdout


def test_the_rules_are_the_issues_list():
  assert [(r.name, r.severity) for r in lint.RULES] == [
      ("one_correct", "error"), ("duplicate_candidate", "error"),
      ("empty_sentence", "error"), ("correct_in_context", "error"),
      ("answer_count", "warning"), ("unknown_label", "info"),
      ("copy_cue", "warning"), ("answers_only_cue", "warning"),
      ("context_free_ceiling", "warning"), ("sequence_bounds", "warning")]


def _no_cue(i: int) -> BLMInstance:
  """Candidates of random words; the correct one is just one of them."""
  rng = random.Random(i)
  words = [" ".join(rng.choice("abcdefgh") for _ in range(4)) + f" {k} ."
           for k in range(3)]
  rng.shuffle(words)
  return _clean(i, answers=tuple(Sentence(w) for w in words),
                labels=("AEV", "Corr", "WN1"))


def test_answers_only_cue_fires_on_a_local_cue_only():
  cued = [_clean(i) for i in range(100)]  # "right" marks the answer
  report = lint.lint(cued, answers_only=True)
  assert report.warnings == {"answers_only_cue": 100}
  assert not report.ok(strict=True) and report.ok()
  cue = report.cue_scores[
      "agreement, language en, subset unknown, type I"]
  assert cue.logit == 1.0 and abs(cue.chance - 1 / 3) < 1e-9
  assert "answers-only accuracy over 100 instances: logit 1.000" in (
      report.format())
  # Off by default; fair candidates pass; too few instances get no score.
  assert lint.lint(cued).ok(strict=True)
  fair = lint.lint([_no_cue(i) for i in range(200)], answers_only=True)
  assert fair.ok(strict=True), fair.format()
  assert abs(fair.cue_scores[
      "agreement, language en, subset unknown, type I"].logit - 1 / 3) < 0.1
  assert lint.lint(cued[:20], answers_only=True).cue_scores == {}


def test_odd_one_in_finds_the_centre_of_a_minimal_answer_set():
  def centred(i):
    """Each wrong answer is the correct one with one word changed."""
    a, b, c, d = random.Random(i).sample("abcdefgh", 4)
    return _clean(i, answers=(Sentence(f"{c} {b} x ."),
                              Sentence(f"{a} {b} x ."),
                              Sentence(f"{a} {d} x .")))

  xs = [centred(i) for i in range(60)]
  assert answers_only.odd_one_in_accuracy(xs) == 1.0
  assert not answers_only.score(xs).cue  # no local cue
  assert answers_only.odd_one_in_accuracy([_no_cue(i) for i in range(60)]) < 0.6


def test_cli_answers_only(tmp_path, capsys):
  # The fixture rows' correct answer is the only grammatical candidate
  # (100 rows: at 60 the logit sits at the margin, fold split permitting).
  path = write_release(tmp_path / "cued.tsv", release_rows(100))
  assert lint_cli.main([path, "--strict"]) == 0
  assert lint_cli.main([path, "--strict", "--answers_only"]) == 1
  assert "WARNING answers_only_cue: 100/100" in capsys.readouterr().out


def _two_alternants(i: int, cue: bool) -> BLMInstance:
  """A context-necessary set: two well-formed forms, each right in half of
  the instances, and one error mirrored on each; with `cue` the right form
  always comes first in a fixed word order ("a b")."""
  rng = random.Random(i)
  n1, n2 = rng.sample("cdefghij", 2)
  forms = [f"{n1} a b {n2} {i} .", f"{n2} b a {n1} {i} ."]
  right = 0 if cue else rng.randrange(2)
  answers = forms + [f"{n1} a b {n2} x {i} .", f"{n2} b a {n1} x {i} ."]
  labels = ["Corr" if k == right else "Coord" for k in range(2)] + [
      "WN1" if right == 0 else "WN2", "WN2" if right == 0 else "WN1"]
  return _clean(i, answers=tuple(Sentence(a) for a in answers),
                labels=tuple(labels), correct=right, subset=f"dir{right}")


@pytest.mark.slow
def test_context_free_ceiling_holds_a_context_necessary_set():
  balanced = [_two_alternants(i, cue=False) for i in range(400)]
  report = lint.lint(balanced, ceiling=answers_only.CONTEXT_FREE_CEILING)
  assert report.ok(strict=True), report.format()
  # Scored as one population, though `subset` names the drawn direction.
  (scores,) = report.ceiling_scores.values()
  assert scores["word_logit"] <= 0.55 and scores["odd_one_in"] <= 0.55
  assert lint.lint(balanced).ceiling_scores == {}  # only when asked
  # The ceiling replaces the chance + 0.05 cue rule, which two well-formed
  # alternants break by design.
  both = lint.lint(balanced, answers_only=True,
                   ceiling=answers_only.CONTEXT_FREE_CEILING)
  assert both.ok(strict=True) and both.cue_scores == {}
  assert not lint.lint(balanced, answers_only=True).ok(strict=True)


def test_context_free_ceiling_catches_a_planted_cue():
  cued = [_two_alternants(i, cue=True) for i in range(400)]
  report = lint.lint(cued, ceiling=answers_only.CONTEXT_FREE_CEILING)
  assert report.warnings == {"context_free_ceiling": 400}
  assert report.ok() and not report.ok(strict=True)
  (finding,) = report.examples["context_free_ceiling"]
  assert "word_logit 1.000" in finding.message
  assert "above the ceiling 0.55" in finding.message
  # A probe score above the ceiling counts the same way.
  fair = lint.lint([_two_alternants(i, cue=False) for i in range(400)])
  fair.hold_to_ceiling("agreement/en/I/4 answers", 400,
                       {"embedding_probe": 0.9}, 0.55)
  assert fair.warnings == {"context_free_ceiling": 400}
  assert "embedding_probe 0.900" in fair.format()


def test_cli_strict_fails_a_context_necessary_config_over_its_ceiling(
    monkeypatch, capsys):
  sets = {"fair": [_two_alternants(i, cue=False) for i in range(200)],
          "cued": [_two_alternants(i, cue=True) for i in range(200)]}
  monkeypatch.setattr(lint_cli, "_sources", lambda target, *_: iter(
      [(f"{target}[train]", sets[target])]))
  monkeypatch.setattr(lint_cli, "targets_of", lambda target: [target])
  # Context-necessary, not sequence-necessary (`marker`).
  monkeypatch.setattr(lint_cli, "context_necessary",
                      lambda target, data_dir, marker="context_necessary":
                      marker == "context_necessary")
  assert lint_cli.main(["fair", "--strict"]) == 0
  assert lint_cli.main(["cued", "--strict"]) == 1
  out = capsys.readouterr().out
  assert "WARNING context_free_ceiling: 200/200" in out
  # A paper design is not held to the ceiling.
  monkeypatch.setattr(lint_cli, "context_necessary", lambda *_: False)
  assert lint_cli.main(["cued", "--strict"]) == 0


@pytest.mark.slow
def test_the_probe_reads_embeddings_and_names_its_population(monkeypatch):
  import numpy as np

  from blm_jax.results import context_free

  xs = [_two_alternants(i, cue=False) for i in range(300)]

  def fake_embed(texts, encoder, **kwargs):
    """The correct candidate's text gets a marker dimension."""
    right = {x.answers[x.correct].text for x in xs}
    rng = np.random.default_rng(0)
    v = rng.normal(size=(len(texts), 8)).astype(np.float32)
    v[:, 0] += [4.0 if t in right else 0.0 for t in texts]
    return v

  from blm_jax.embedding import embed
  monkeypatch.setattr(embed, "embed_sentences", fake_embed)
  # Every text is its instance's own, so the marker is a cue in the
  # correct candidate's embedding: the probe must find it.
  ((key, (n, acc)),) = context_free.embedding_probe_scores(
      xs, "minilm", None).items()
  assert key == "agreement/en/I/4 answers" and n == 300
  assert acc > 0.9


def test_cli_split_and_sample(tmp_path, capsys):
  import data_builders  # noqa: F401

  release = tmp_path / "release"
  write_release(release / "blm.tsv", release_rows(60))
  args = ["blm_published/folder", "--data_dir", str(tmp_path / "data"),
          "--manual_dir", str(release)]
  assert lint_cli.main(args + ["--split", "full", "--sample", "25"]) == 0
  out = capsys.readouterr().out
  assert "blm_published/folder[full]: 25 instances" in out
  assert lint_cli.main(args + ["--split", "dev"]) == 2
  assert "--split: blm_published/folder has no split 'dev'; it has full" in (
      capsys.readouterr().err)
  xs = [_clean(i) for i in range(10)]
  assert lint.sample(xs, 4) == lint.sample(xs, 4)  # seeded
  assert len(lint.sample(xs, 4)) == 4 and lint.sample(xs, 20) == xs


def test_reports_only_the_checks_it_ran(tmp_path, capsys):
  """Without --answers_only no answers_only_cue line; on too little data
  the asked-for check says it did not run, never `ok ... 0/9`."""
  path = write_release(tmp_path / "small.tsv", release_rows(9))
  assert lint_cli.main([path]) == 0
  out = capsys.readouterr().out
  assert "answers_only_cue" not in out and "context_free_ceiling" not in out
  assert "ok      one_correct: 0/9" in out
  assert lint_cli.main([path, "--answers_only"]) == 0
  out = capsys.readouterr().out
  assert "ok      answers_only_cue" not in out
  assert "answers_only_cue: not run: too few instances to fit" in out
  # The fixture's file names no language, subset or type: said so.
  assert "agreement, language unknown, subset unknown, type unknown" in out


def test_unknown_language_and_subset_are_named():
  xs = [_clean(i, subset="") for i in range(3)]
  xs = [dataclasses.replace(x, language="") for x in xs]
  report = lint.lint(xs, answers_only=True)
  text = report.format("f.tsv")
  assert "language unknown, subset unknown" in text
  assert "//" not in text
