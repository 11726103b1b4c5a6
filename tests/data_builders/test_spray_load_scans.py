"""The lexical slips a reader found in spray/load data stay fixed: a noun equal
to the verb's own form ("the baker sprinkles the cookies with sprinkles")
and spurt's with-variant with a leaking pipe or valve as the agent. Every
split of every type of every config of both spray/load builders is scanned
at full size (the `full_scan` tests: generation without embedding, 6-120 s
a config on the loaded shared CPU, about 20 min for all 24;
studies/records/spray_load_scans.json has each one's time; deselect them with
`-m "not full_scan"`)."""

import json
import pathlib

import pytest

from data_builders.blm_spray_load import generate as g
from data_builders.blm_spray_load import lexicon, validate
from data_builders.blm_spray_load_v0 import generate as g0
from tests.builder_checks import copy_lexicon, edit

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _configs():
  out = {}
  for lt in g.LEXICAL_TYPES:
    for t in ("ALT-ATL", "ATL-ALT"):
      out[f"{t}_type_{lt}"] = lambda t=t, lt=lt: g.generate(t, lt)
    out[f"ctx_type_{lt}"] = lambda lt=lt: g.generate_ctx(lt)
    out[f"seq_type_{lt}"] = lambda lt=lt: g.generate_seq(lt)
    for t in ("Template1", "Template2"):
      out[f"v0/{t}_type_{lt}"] = lambda t=t, lt=lt: g0.generate(t, lt)
    for c in (g0.CTX, g0.CTX_T2):
      out[f"v0/{c}_type_{lt}"] = lambda c=c, lt=lt: g0.generate_ctx(lt, ctx=c)
  return out


CONFIGS = _configs()


@pytest.fixture(scope="module")
def lex():
  return lexicon.load_lexicon()


def test_validators_flag_the_sentences_read(lex):
  assert validate.verb_form_stutters([
      "I know a bakery where the baker sprinkles the cookies with sprinkles.",
      "We spritz the orchids with a leaf spray every morning.",
      "The farmers sow grass seed.",
      # v0's WS repeats its noun by design; the verb is another one.
      "Every autumn seeds scatter with seeds."], lex) == [
          "I know a bakery where the baker sprinkles the cookies with "
          "sprinkles."]
  assert validate.emitter_with_variants([
      "The leaking valve has spurted the ceiling with water.",
      "The ceiling has been spurted with water by the burst pipes.",
      "The broken pipe has spurted water all over the floor.",
      "The kids have spurted the dog with cold water."], lex) == [
          "The leaking valve has spurted the ceiling with water.",
          "The ceiling has been spurted with water by the burst pipes."]


def test_lexicon_rejects_a_noun_equal_to_its_verb_form(tmp_path):
  folder = copy_lexicon(lexicon.LEXICON_DIR, tmp_path)
  edit(folder / "sprinkle.json", '["coconut flakes", "pl"]',
       '["sprinkles", "pl"]')
  with pytest.raises(lexicon.LexiconError) as e:
    lexicon.load_lexicon(folder)
  assert str(e.value) == (
      f"{folder / 'sprinkle.json'}: entry 'sprinkle': themes: 'sprinkles' "
      "contains ['sprinkles'], a form of the verb 'sprinkle'")


def test_every_agent_of_spurt_aims(lex):
  """spurt's with-variant ("the kids have spurted the dog with water") needs
  an agent that aims; no agent of the entry is an emitter."""
  agents = {w for np in lex["spurt"].args["Agent"] for w in np.text.split()}
  assert not agents & set(validate.EMITTERS)


def test_scan_record_is_clean_and_current():
  """The committed full-size scan: every config at 0 for both classes."""
  record = json.loads((ROOT / "studies/records/spray_load_scans.json").read_text())
  assert len(record["configs"]) == len(CONFIGS)
  for row in record["configs"].values():
    assert row["verb_form_stutter"] == 0 and row["emitter_with_variant"] == 0


@pytest.mark.full_scan
@pytest.mark.parametrize("name", list(CONFIGS))
def test_full_size_scan(lex, name):
  texts = {s.text for x in CONFIGS[name]()
           for s in (*x.context, *x.answers)}
  assert not validate.verb_form_stutters(texts, lex)[:5], name
  assert not validate.emitter_with_variants(texts, lex)[:5], name
