"""The context-necessary spray/load configs (`blm_spray_load/ctx_type_*`):
the direction is drawn per instance and the answers are built around both
alternants, so the answers alone cannot decide; the paper configs stay
as they were."""

import collections

import pytest

from blm_jax.data import lint
from blm_jax.data.context_free import answers_only
from data_builders.blm_spray_load import generate, lexicon, templates
from data_builders.common.template import token_diff
from tests.builder_checks import repr_digest
from tests.data_builders.test_blm_spray_load import _expected_diff


@pytest.fixture(scope="module")
def lex():
  return lexicon.load_lexicon()


@pytest.fixture(scope="module")
def ctx(lex):
  out = {"I": generate.generate_ctx("I", lex)}
  for lt in ("II", "III"):
    out[lt] = generate.generate_ctx(lt, lex)
  return out


def test_builder_configs():
  from data_builders.blm_spray_load import blm_spray_load_dataset_builder as b
  by_name = {c.name: c for c in b.Builder.BUILDER_CONFIGS}
  for lt in ("I", "II", "III"):
    c = by_name[f"ctx_type_{lt}"]
    assert c.context_necessary and c.lexical_type == lt
    assert not by_name[f"ALT-ATL_type_{lt}"].context_necessary
  from configs import common
  assert common.DATASETS["spray_load_ctx"] == "blm_spray_load/ctx_type_{}"


@pytest.mark.slow
@pytest.mark.parametrize("lt", ["I", "II", "III"])
def test_shape_labels_direction_and_lint(ctx, lt):
  xs = ctx[lt]
  assert len(xs) == {"I": 3750, "II": 15000, "III": 15000}[lt]
  assert len({x.id for x in xs}) == len(xs)
  for x in xs:
    assert len(x.context) == 7 and len(x.answers) == 18
    assert sorted(x.labels) == sorted(templates.CTX_LABELS)
    assert x.labels[x.correct] == templates.CORRECT
    assert (x.family, x.subset, x.lexical_type) == (
        "spray_load_ctx", "ctx", lt)
  report = lint.lint(xs[::3])
  assert not {r for r, n in report.counts.items() if n}, report.format(lt)
  # Each alternant is the target in half of the instances, and of each verb's
  # (type III: of each first context verb's) instances.
  first = collections.Counter(x.context[0].pattern for x in xs)
  assert abs(first[str(templates.ALT)] / len(xs) - 0.5) < 0.02, first
  if lt != "III":
    by_verb = collections.defaultdict(list)
    for x in xs:
      by_verb[x.id.split("-")[2]].append(
          x.context[0].pattern == str(templates.ALT))
    shares = [sum(v) / len(v) for v in by_verb.values()]
    assert len(shares) == 30 and 0.35 < min(shares) <= max(shares) < 0.65
  # No candidate repeats a context sentence (type I's NOALT draws its own
  # argument combination) and the positions of CORRECT are spread.
  assert not any(s.text in {c.text for c in x.context}
                 for x in xs for s in x.answers)
  positions = collections.Counter(x.correct for x in xs)
  assert len(positions) == 18 and max(positions.values()) < 0.1 * len(xs)


@pytest.mark.slow
@pytest.mark.parametrize("lt", ["I", "II", "III"])
def test_answers_alone_cannot_decide(ctx, lt):
  xs = ctx[lt][::len(ctx[lt]) // 600]
  s = answers_only.score(xs)
  assert s.logit <= 0.55 and s.odd_one_in <= 0.55, s


@pytest.mark.slow
@pytest.mark.parametrize("lt", ["I", "II", "III"])
def test_each_label_breaks_its_rule_relative_to_its_base(ctx, lt):
  paper = {d: templates.template_patterns(d)[1] for d in generate.DIRECTIONS}
  for x in ctx[lt][:200]:
    by_label = dict(zip(x.labels, (s.pattern for s in x.answers)))
    first = x.context[0].pattern
    direction = ("ALT-ATL" if first == str(templates.ALT) else "ATL-ALT")
    other = "ATL-ALT" if direction == "ALT-ATL" else "ALT-ATL"
    assert by_label[templates.NOALT] == first
    assert by_label[templates.CORRECT] != first
    for label in templates.LABELS:
      # On the target: the paper's answer of the drawn direction; on the
      # first alternant: the paper's answer of the other direction, whose
      # target is that alternant.
      assert by_label[label] == str(paper[direction][label])
      assert by_label[templates.mirrored_label(label)] == str(
          paper[other][label])
      # Each label differs from its base exactly as its rule says.
      if label != templates.CORRECT:
        assert _expected_diff(label, by_label[templates.CORRECT],
                              by_label[label]), (x.id, label)
        assert _expected_diff(label, by_label[templates.NOALT],
                              by_label[templates.mirrored_label(label)]), (
                                  x.id, label)
    # The two bases are the two alternants: same roles, the object and PP
    # roles exchanged.
    assert token_diff(by_label[templates.CORRECT],
                      by_label[templates.NOALT]) == [
                          ("NP-Theme PP-Loc", "NP-Loc PP-Theme")
                          if direction == "ALT-ATL" else
                          ("NP-Loc PP-Theme", "NP-Theme PP-Loc")]


@pytest.mark.slow
def test_type_i_material(ctx):
  """Type I: the context and the target's answers share one verb and
  argument combination; the NOALT answers share another one (of the same
  verb, by construction)."""
  for x in ctx["I"][::50]:
    by_label = dict(zip(x.labels, x.answers))
    target = [by_label[lab] for lab in templates.LABELS]
    noalt = [by_label[templates.mirrored_label(lab)]
             for lab in templates.LABELS]
    words = lambda ss: {w for s in ss for w in _nouns(s)}
    assert words(target) == words(x.context), x.id
    assert words(noalt) != words(target), x.id


def _nouns(s) -> set[str]:
  """The argument phrases of a sentence (its NP and PP chunks, without
  their preposition)."""
  out = set()
  for chunk, slot in zip(s.chunks[1:], s.pattern.split()):
    if slot.startswith("NP"):
      out.add(chunk.lower())
    elif slot.startswith("PP") and slot != "PP-Emb":
      out.add(chunk.split(" ", 1)[1].lower())
  return out


# sha256 over repr(instance) of every instance of each ctx config, in
# generation order: training runs use these texts, so they stay fixed.
CTX_DIGESTS = {
    "I": "bbc49b34e35257ef47c36d265d70abc2634d229a959ba8b856c7649a1d5574f1",
    "II": "3b1c5a2235eb2bc271f838247eae26dae1665dbb615458ad322f04b8bd38bd3c",
    "III": "ddf1f193afb4aa7b83cfcba131800590f648b992e4aff74f612d46b4d07e1cf3",
}


@pytest.mark.slow
@pytest.mark.parametrize("lt", ["I", "II", "III"])
def test_ctx_records_fixed(ctx, lt):
  assert repr_digest(ctx[lt]) == CTX_DIGESTS[lt]
