"""The design analyzer (blm_jax.data.design, `lint --design`): which context
positions decide the answer, whether the whole context determines it, and
what it says on data without patterns or with too little to fit."""

import dataclasses
import random

import pytest

from blm_jax.cli import lint as lint_cli
from blm_jax.data import design, lint
from data_builders.common.schema import BLMInstance, Sentence
from tests.release_fixtures import release_rows, write_release

PATTERNS = ("A", "B")


def _instances(n: int, rule, seed: int = 0, positions: int = 3):
  """Instances whose context positions carry random patterns A/B and whose
  correct answer's pattern is rule(context patterns); 4 candidates with
  patterns ans-A, ans-B, bad-1, bad-2, in a random order."""
  rng = random.Random(seed)
  out = []
  for i in range(n):
    pats = [rng.choice(PATTERNS) for _ in range(positions)]
    right = rule(pats, rng)
    cands = [("ans-A", f"w{i} a ."), ("ans-B", f"w{i} b ."),
             ("bad-1", f"w{i} c ."), ("bad-2", f"w{i} d .")]
    rng.shuffle(cands)
    k = [p for p, _ in cands].index(f"ans-{right}")
    out.append(BLMInstance(
        id=f"x{i}", family="agreement", language="en", lexical_type="I",
        subset="", context=tuple(Sentence(f"s{i} {j} {p.lower()} .", p)
                                 for j, p in enumerate(pats)),
        answers=tuple(Sentence(t, p) for p, t in cands), correct=k,
        labels=tuple("Corr" if j == k else "AEV" for j in range(4))))
  return out


def _xor(p, rng):
  return "A" if p[0] == p[1] else "B"


def test_one_position_decides():
  (r,) = design.analyze(_instances(200, lambda p, rng: p[0]),
                        context_free=False)
  assert r.level == "pattern"
  assert r.singles[1] == 1.0 and max(r.singles[2], r.singles[3]) < 0.7
  assert r.smallest_deciding == (1,)
  assert r.determined and r.n_ambiguous == 0
  assert r.n_context_patterns == 8  # 2 ** 3 pattern sequences
  assert "position 1's pattern decides 1.000" in " ".join(
      r.sequence_violations())


def test_a_pair_decides_where_no_single_does():
  (r,) = design.analyze(_instances(300, _xor), context_free=False)
  assert max(r.singles.values()) < 0.7
  assert r.pairs[(1, 2)] == 1.0 and r.smallest_deciding == (1, 2)
  assert r.determined


def test_an_undetermined_answer_is_counted():
  (r,) = design.analyze(_instances(200, lambda p, rng: rng.choice(PATTERNS)),
                        context_free=False)
  assert not r.determined and r.n_ambiguous > 100
  assert r.n_second_answer == r.n_ambiguous  # the other ans-* is there
  assert r.smallest_deciding is None
  assert any("undetermined" in v for v in r.sequence_violations())


@pytest.mark.slow
def test_sequence_bounds_see_the_two_alternants():
  (r,) = design.analyze(_instances(300, _xor))
  # The words of the two well-formed candidates (a, b) give them away:
  # effective chance 0.5, two candidates plausible, top-2 breaks its bound.
  assert r.set_score.plausible == 2
  assert abs(r.set_score.effective_chance - 0.5) < 0.05
  violations = r.sequence_violations()
  assert [v for v in violations if "top-2 1.000 > 0.600" in v], violations
  assert not any("position" in v or "undetermined" in v
                 for v in violations), violations
  report = lint.LintReport(n_instances=r.n)
  report.hold_to_sequence_bounds(r.population, r.n, violations)
  assert not report.ok(strict=True) and report.ok()
  assert "WARNING sequence_bounds: 300/300" in report.format()


def test_without_patterns_it_says_what_it_cannot_compute():
  xs = [dataclasses.replace(
      x, context=tuple(Sentence(s.text) for s in x.context),
      answers=tuple(Sentence(s.text) for s in x.answers))
        for x in _instances(60, lambda p, rng: p[0])]
  (r,) = design.analyze(xs, context_free=False)
  assert r.level == "words" and r.determined is None
  assert set(r.singles) == {1, 2, 3} and set(r.pairs) == {(1, 2), (1, 3),
                                                          (2, 3)}
  assert "carry no patterns: determinacy (pattern level) not computed" in (
      r.format())


def test_cli_one_instance_is_too_little_to_fit(tmp_path, capsys):
  path = write_release(tmp_path / "one.tsv", release_rows(1))
  assert lint_cli.main([path, "--design"]) == 0
  out = capsys.readouterr().out
  assert "too few to fit: 1 instance(s)" in out
  assert f"{path} holds too little to fit" in out


@pytest.mark.slow
def test_strict_holds_a_sequence_necessary_config(monkeypatch, capsys):
  xs = _instances(200, _xor)
  monkeypatch.setattr(lint_cli, "_sources",
                      lambda *a, **k: iter([("blm_x/seq_type_I[train]", xs)]))
  monkeypatch.setattr(lint_cli, "targets_of", lambda target: [target])
  monkeypatch.setattr(lint_cli, "context_necessary",
                      lambda target, data_dir, marker="context_necessary":
                      marker == "sequence_necessary")
  assert lint_cli.main(["blm_x/seq_type_I", "--design"]) == 0
  capsys.readouterr()
  # --strict alone analyses a sequence-necessary config.
  assert lint_cli.main(["blm_x/seq_type_I", "--strict"]) == 1
  out = capsys.readouterr().out
  assert "WARNING sequence_bounds: 200/200" in out
  assert "context-free top-2 1.000 > 0.600" in out


@pytest.mark.slow
def test_design_holds_a_context_necessary_config_to_the_ceiling(
    monkeypatch, capsys):
  xs = _instances(200, lambda p, rng: "A")  # the answers alone decide
  monkeypatch.setattr(lint_cli, "_sources",
                      lambda *a, **k: iter([("blm_x/ctx_type_I[train]", xs)]))
  monkeypatch.setattr(lint_cli, "targets_of", lambda target: [target])
  monkeypatch.setattr(lint_cli, "context_necessary",
                      lambda target, data_dir, marker="context_necessary":
                      marker == "context_necessary")
  assert lint_cli.main(["blm_x/ctx_type_I", "--design", "--strict"]) == 1
  assert "set_scorer 1.000 above the ceiling 0.55" in capsys.readouterr().out
