"""`blm_cos_od`: change-of-state (CoS) and object-drop (OD) BLMs, En and It.

000 sec. 3.2.2-3.2.3 and 4.2, Figures 8/9/11/12; 002 sec. 4.1, Figures 6-8.
Twelve configs `<cos|od>_<en|it>_type_<I|II|III>`, 3000 instances each,
generated from the curated lexicons in `lexicon/` by `generate.generate`, and
twelve context-necessary ones `<cos|od>_<en|it>_ctx_type_<I|II|III>`
(`ctx.generate_ctx`, same sizes) and twelve sequence-necessary ones
`<cos|od>_<en|it>_seq_type_<I|II|III>` (`seq.generate_seq`);
splits are 90:10 train:test with a 20% dev slice of train (72/18/10).

    import data_builders, tensorflow_datasets as tfds
    src = tfds.data_source("blm_cos_od/cos_it_type_II", data_dir=...)
"""

from __future__ import annotations

import dataclasses

import tensorflow_datasets as tfds

from data_builders.blm_cos_od import ctx, generate, seq, templates
from data_builders.common import builder


@dataclasses.dataclass(eq=False)
class CosOdConfig(builder.GeneratedConfig):
  verb_class: str = "cos"
  language: str = "en"
  lexical_type: str = "I"
  num_instances: int = generate.INSTANCES_PER_CONFIG
  # "paper": 000 Figures 8/11; "ctx": the context-necessary design (ctx.py);
  # "seq": the sequence-necessary design (seq.py).
  design: str = "paper"
  # `seq`: the wider rule family (the held-out-rules regime's).
  wide_rules: bool = False


def _kind(c):
  return "change-of-state" if c == "cos" else "object-drop"


# The configs whose data 1.3.0 changed (RELEASE_NOTES) carry it as their own
# version; the others keep the builder's VERSION, so their records stay
# current. 1.3.0 changed every `_seq` config (restricted draws) and every
# design of the lexicons whose texts changed (English CoS and OD); the
# Italian lexicons gained declarations only.
TEXTS_CHANGED_1_3 = (("cos", "en"), ("od", "en"))


def _version(verb_class: str, language: str, design: str) -> str | None:
  if design == "seq" or (verb_class, language) in TEXTS_CHANGED_1_3:
    return "1.3.0"
  return None


def _configs():
  paper = [
      CosOdConfig(
          name=generate.config_name(c, lang, t),
          description=f"{_kind(c)} verbs, {lang}, lexical type {t}",
          verb_class=c, language=lang, lexical_type=t,
          version=_version(c, lang, "paper"))
      for c in templates.CLASSES for lang in templates.LANGUAGES
      for t in generate.LEXICAL_TYPES
  ]
  context_necessary = [
      CosOdConfig(
          name=ctx.config_name(c, lang, t),
          description=(f"{_kind(c)} verbs, {lang}, lexical type {t}, "
                       "context-necessary: the missing form of the "
                       "progression is drawn per instance"),
          verb_class=c, language=lang, lexical_type=t, design="ctx",
          context_necessary=True, version=_version(c, lang, "ctx"))
      for c in templates.CLASSES for lang in templates.LANGUAGES
      for t in generate.LEXICAL_TYPES
  ]
  sequence_necessary = [
      CosOdConfig(
          name=seq.config_name(c, lang, t),
          description=(f"{_kind(c)} verbs, {lang}, lexical type {t}, "
                       "sequence-necessary: the progression of form and "
                       "tail is drawn per instance"),
          verb_class=c, language=lang, lexical_type=t, design="seq",
          context_necessary=True, sequence_necessary=True,
          version=_version(c, lang, "seq"))
      for c in templates.CLASSES for lang in templates.LANGUAGES
      for t in generate.LEXICAL_TYPES
  ]
  # The held-out-rules regime: the `seq` design over a wider rule family
  # (1600 rules), split by rule.
  rules = [
      CosOdConfig(
          name=seq.config_name(c, lang, t, regime="rules"),
          description=(f"{_kind(c)} verbs, {lang}, lexical type {t}, the "
                       "sequence-necessary design over form and tail "
                       "periods 1-4, split by rule: no test rule in train or "
                       "dev"),
          verb_class=c, language=lang, lexical_type=t, design="seq",
          context_necessary=True, sequence_necessary=True, regime="rules",
          wide_rules=True, version=_version(c, lang, "seq"))
      for c in templates.CLASSES for lang in templates.LANGUAGES
      for t in generate.LEXICAL_TYPES
  ]
  return paper + context_necessary + sequence_necessary + rules


class Builder(builder.GeneratedBLMBuilder):
  """Change-of-state / object-drop BLMs in English and Italian."""

  VERSION = tfds.core.Version("1.2.0")
  RELEASE_NOTES = {
      "1.0.0": "CoS and OD, En and It, types I-III.",
      "1.1.0": "Label validity. Italian CoS uses only verbs whose "
               "anticausative takes obligatory si (10 no-si/optional/none "
               "verbs such as migliorare, cuocere, friggere, affilare are "
               "kept in the lexicon with their class but replaced by "
               "spezzare, incrinare, accendere, spegnere, riempire, "
               "frantumare, restringere, ammorbidire, allungare, "
               "sgretolare); English sharpen replaced by soften. CoS "
               "adverbials never imply an agent (by hand/design/ear/"
               "default/mistake, da manuale replaced). No English present "
               "perfect with a time-point adverbial (at midnight, by noon): "
               "frames are drawn among those the adverbials accept. Every "
               "adverbial is marked agentive/time_point in the lexicon.",
      "1.2.0": "Sequence-necessary configs <cos|od>_<en|it>_seq_type_<I|II|"
               "III> (the progression of form and tail drawn per instance). "
               "Lexicon fixes, changing every design's texts: English "
               "OD 'by habit' replaced (by daylight, by lamplight, by "
               "candlelight, by night, by firelight) and study's 'by heart' by "
               "'by daylight'; English CoS break's "
               "theme 'an oath' replaced by 'the mirror' (no oath breaks "
               "with a crash); by/da + argument candidates after an active "
               "verb (E-WRBY, IE-WRBY, E-INT) take an NP that by/da cannot "
               "read as a place or source (lexicon 'landmarks': 'The tailor "
               "sews by the curtains', 'La nonna legge dalla lettera'); "
               "themes replaced where a verb had no other: plow, sweep, "
               "close, open, widen, leggere, mungere, spazzare.",
      "1.3.0": "Per config (`_version`): every _seq and _seq_rules config, "
               "and every design of English CoS and OD. Lexicons declare "
               "mass nouns and selectional restrictions (README 'Faithful "
               "readings'); texts: 'the stubble' singular (plow), whiten's "
               "'the dentist' by 'the laundress', brighten's 'the sky' by "
               "'the hallway'. "
               "The _seq designs draw within the restrictions, keep type "
               "I's E-INT noun the instance's own, give Italian present and "
               "imperfect passives venire and never repeat a type II/III "
               "context sentence. The Italian paper and ctx configs are "
               "byte-identical (1.2.0).",
  }
  BUILDER_CONFIGS = _configs()

  def generate(self, config):
    if config.design == "seq":
      return seq.generate_seq(config.verb_class, config.language,
                              config.lexical_type, config.num_instances,
                              seed=config.seed, wide=config.wide_rules)
    if config.design == "ctx":
      return ctx.generate_ctx(config.verb_class, config.language,
                              config.lexical_type, config.num_instances,
                              seed=config.seed)
    return generate.generate(config.verb_class, config.language,
                             config.lexical_type, config.num_instances,
                             seed=config.seed)
