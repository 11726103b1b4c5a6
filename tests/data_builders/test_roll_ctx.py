"""The context-necessary Roll configs (`ctx_type_<t>`): the answers alone
stay near the floor of a grammaticality detector, the direction is balanced
and independent of the verb, each label changes what it names (read from
patterns and from words), and the paper's configs keep their records."""

import collections
import hashlib

import pytest
import tensorflow_datasets as tfds

from blm_jax.data import lint
from blm_jax.data.context_free import answers_only, set_scorer
from data_builders.blm_roll import blm_roll_dataset_builder as roll
from data_builders.blm_roll import generate, lexicon, templates
from data_builders.common import schema

SMALL = 400
# sha256 of every record of the paper configs (ids, context and answer
# texts, patterns, chunks, labels, correct index) at 3000 instances, as built
# by blm_roll 1.1.0; the context-necessary configs must leave them alone.
PAPER_DIGESTS = {
    "I": "6f014a53faf35776cab607b55074da07ae395d61a642eb043988b9ae3d7a009e",
    "II": "d64a356446601a771c7221db87012551d93fec05065b0a3e7267741c228a1660",
    "III": "a68668dd301b1309796634efc38db88c37aff076f34ed1afce53fe0eef9e1b1a",
}


def _digest(xs):
  h = hashlib.sha256()
  for x in xs:
    h.update(repr((x.id, [(s.text, s.pattern, s.chunks) for s in x.context],
                   [(s.text, s.pattern, s.chunks) for s in x.answers],
                   x.labels, x.correct)).encode())
  return h.hexdigest()


@pytest.fixture(scope="module")
def ctx():
  return {t: generate.generate(t, context_necessary=True)
          for t in generate.LEXICAL_TYPES}


@pytest.mark.slow
@pytest.mark.parametrize("t", generate.LEXICAL_TYPES)
def test_paper_configs_keep_their_records(t):
  assert _digest(generate.generate(t)) == PAPER_DIGESTS[t]


@pytest.mark.slow
@pytest.mark.parametrize("t", generate.LEXICAL_TYPES)
def test_answers_alone_stay_under_the_ceilings(ctx, t):
  """Two well-formed candidates (CORRECT, D) look alike out of context: a
  frame or grammaticality detector gets 1/2. The paper's design scores
  0.79-1.00 here."""
  cue = answers_only.score(ctx[t][:SMALL])
  assert cue.logit <= answers_only.CONTEXT_FREE_CEILING, cue
  assert cue.odd_one_in <= answers_only.CONTEXT_FREE_CEILING, cue
  paper = answers_only.score(generate.generate(t, SMALL))
  assert paper.logit > 0.7, paper  # the check can see a cue


@pytest.mark.slow
@pytest.mark.parametrize("t", generate.LEXICAL_TYPES)
def test_the_strongest_context_free_scorer_stays_at_the_floor(ctx, t):
  """The set scorer (candidates against their answer set) finds the asked
  frame and no more: 1/2 (0.46-0.50 on 400; 0.50 on 2000, README). It
  found blm_roll 1.1.0's cue (0.54-0.60)."""
  s = set_scorer.score(ctx[t][:SMALL])
  assert s.best_top1 <= answers_only.CONTEXT_FREE_CEILING, s


@pytest.mark.slow
@pytest.mark.parametrize("t", generate.LEXICAL_TYPES)
def test_strict_lint_labels_and_direction_balance(ctx, t):
  xs = ctx[t]
  assert len(xs) == 3000 and len({x.id for x in xs}) == 3000
  report = lint.lint(xs)
  assert report.ok(strict=True), report.format(t)
  for x in xs:
    assert sorted(x.labels) == sorted(templates.CTX_LABELS)
    assert x.labels[x.correct] == "CORRECT"
  dirs = [generate.direction(x.id) for x in xs]
  assert abs(dirs.count(templates.TI) / len(xs) - 0.5) < 0.03
  positions = collections.Counter(x.correct for x in xs)
  assert len(positions) == 6 and max(positions.values()) < 0.2 * len(xs)


@pytest.mark.slow
def test_direction_is_independent_of_the_verb(ctx):
  index = {v.past: v.lemma for v in lexicon.load().verbs.values()}
  by_verb = collections.defaultdict(list)
  for x in ctx["I"]:
    by_verb[index[x.context[0].chunks[1]]].append(
        generate.direction(x.id) == templates.TI)
  assert len(by_verb) == 18
  for verb, ti in by_verb.items():
    assert abs(sum(ti) / len(ti) - 0.5) < 0.15, (verb, sum(ti), len(ti))


def _read(x):
  """Paradigm 2 as the context states it: who 'did it', what 'was' where."""
  c = x.context
  d = generate.direction(x.id)
  did, was = (c[5], c[6]) if d == templates.TI else (c[6], c[5])
  assert did.chunks[1:3] == ("did", "it") and was.chunks[1] in ("was", "were")
  return d, did.chunks[0], was.chunks[0], was.chunks[2]


@pytest.mark.slow
@pytest.mark.parametrize("t", generate.LEXICAL_TYPES)
def test_each_label_changes_what_it_names_in_the_words(ctx, t):
  state_of = {l.path: l.state for s in lexicon.load().scenes
              for l in s.locations}
  low = lambda s: s[:1].lower() + s[1:]
  for x in ctx[t][::15]:
    d, agent, theme, state = _read(x)
    c = x.context
    if d == templates.TI:  # the paper's order: sentence 4 intransitive
      assert c[3].chunks[0] == c[2].chunks[0] and "LOC-path" in c[3].pattern
    else:
      assert c[0].chunks[0] == c[1].chunks[0] and "LOC-path" in c[0].pattern
      assert "OBJ-Theme" in c[3].pattern
    a = {lab: s.chunks for lab, s in zip(x.labels, x.answers)}
    foil_agent = a["T-D-RS"][2]
    foil_path = a["I-D-RR"][2]
    assert low(foil_agent) != low(agent) and state_of[foil_path] != state
    assert a["I-D-RR"][0] == foil_agent[:1].upper() + foil_agent[1:]
    intr = lambda ch, path: ch[0] == theme and ch[2] == path
    trans = lambda ch, ag: low(ch[0]) == low(ag) and ch[2] == low(theme)
    path = a["I-RR"][2]
    assert state_of[path] == state and a["I-RR"][0] == agent
    assert a["T-RS"][0] == theme and a["T-RS"][2] == low(agent)
    assert a["T-D-RS"][0] == theme
    if d == templates.TI:
      assert intr(a["CORRECT"], path) and intr(a["D"], foil_path)
    else:
      assert trans(a["CORRECT"], agent) and trans(a["D"], foil_agent)


def _shape(pat: str):
  """(frame, subject role, material) of an answer pattern."""
  toks = pat.split()
  frame = "I" if toks[2].startswith("LOC") else "T"
  mats = {tok.split("-")[-1] for tok in toks if tok.split("-")[0] in (
      "NP", "OBJ", "LOC")}
  assert len(mats) == 1, pat
  return frame, toks[0].split("-")[1], mats.pop()


@pytest.mark.slow
@pytest.mark.parametrize("t", generate.LEXICAL_TYPES)
def test_each_label_is_its_base_with_one_named_change(ctx, t):
  """Bases: I = Theme V path, T = Agent V Theme, on the context's material
  (P2) or the foil (D). RR makes the Agent the intransitive's subject, RS
  swaps the transitive's roles; D only changes the material."""
  well_formed = {("I", "Theme"), ("T", "Agent")}
  for x in ctx[t][::30]:
    asked = "I" if generate.direction(x.id) == templates.TI else "T"
    for lab, s in zip(x.labels, x.answers):
      frame, subject, mat = _shape(s.pattern)
      base, material, rule = templates.CTX_CONSTRUCTION[lab]
      base = asked if base == "asked" else base
      assert frame == base and mat == material, (lab, s.pattern)
      assert ((frame, subject) in well_formed) == (rule is None), lab


@pytest.mark.slow
@pytest.mark.parametrize("t", generate.LEXICAL_TYPES)
def test_both_materials_carry_the_same_candidates(ctx, t):
  """The cue of blm_roll 1.1.0 (the README's "Measured: the cue"): the
  other alternant stood on the foil only, so the material with the extra
  well-formed candidate was the foil and the majority frame the asked one.
  Every instance of every split: the (frame, subject) shapes on the
  context's material (P2) are those on the foil (D), so the set is
  symmetric under exchanging them."""
  bad = []
  for x in ctx[t]:
    by_material = collections.defaultdict(list)
    for s in x.answers:
      frame, subject, mat = _shape(s.pattern)
      by_material[mat].append((frame, subject))
    p2, d = (sorted(by_material[m]) for m in (templates.P2, templates.FOIL))
    if p2 != d or len(by_material) != 2:
      bad.append(f"{x.id}: {dict(by_material)}")
  assert not bad, bad[:3]


@pytest.mark.slow
def test_well_formed_candidates_take_their_paths(ctx):
  """D is a well-formed sentence: its verb takes its path
  (the same scan as the paper configs' correct answers)."""
  from tests.data_builders import test_blm_roll as paper_tests
  lemma = {v.past: v.lemma for v in lexicon.load().verbs.values()}
  bad = []
  for t, xs in ctx.items():
    for x in xs:
      for lab, s in zip(x.labels, x.answers):
        if "LOC-path" in s.pattern and paper_tests._bad_path(
            lemma[s.chunks[1]], s.chunks[2]):
          bad.append(f"{x.id} {lab}: {s.text}")
  assert not bad, bad[:5]


@pytest.mark.slow
def test_ctx_config_builds_with_its_flag(tmp_path, ctx):
  config = roll.RollConfig(name="ctx_type_III_small", lexical_type="III",
                           num_instances=200, context_necessary=True)
  b = roll.Builder(config=config, data_dir=str(tmp_path),
                   file_format="array_record")
  b.download_and_prepare()
  source = b.as_data_source(split="train")
  got = [schema.BLMInstance.from_example(r)
         for r in source.__getitems__(list(range(len(source))))]
  assert got and all(x.labels[x.correct] == "CORRECT" for x in got)
  registered = {c.name: c for c in roll.Builder.BUILDER_CONFIGS}
  for t in generate.LEXICAL_TYPES:
    assert registered[f"ctx_type_{t}"].context_necessary
    assert not registered[f"type_{t}"].context_necessary
  assert tfds.builder("blm_roll/ctx_type_I", data_dir=str(tmp_path))
