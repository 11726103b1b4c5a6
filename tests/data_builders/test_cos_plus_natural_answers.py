"""Full-size scans of every COS+ config (the 16 of 002 and the 8
context-necessary ones, every split): no wrong candidate is a good sentence
of the classes read in blm_cos_plus 1.1.0, and no correct answer or context
sentence is one a speaker would stop at.

- 002 Figure 9's role errors, `Ag Verb` (T2I Grammar, I2T Sequence) and
  `Pa Verb Ag`, with a verb that also drops its object ("Die Großmutter hat
  gebacken.") or under which one of them is good in another sense ("Il
  panettiere si è raffreddato.", "Le ragazze si seccano.", "Der
  Küchenchef ist zerrissen.", "The soup warms the caterer."); verbs.tsv
  `role_error` says which, and only `no` verbs are generated.
- A German intransitive with haben ("Der Lachs hat gebraten."): the
  haben-verbs are the object-drop ones, so none is left.
- Labels: every Grammar candidate is one of 002's two role errors, and with
  the verbs above gone neither is a good sentence (README "Labels").
"""

import pytest

from data_builders.blm_cos_plus import generate, lexicon, templates

PAPER = [(v, d, lx) for v in generate.VARIANTS for d in templates.DIRECTIONS
         for lx in generate.LEXICALITIES]
CTX = [(v, lx) for v in generate.VARIANTS for lx in generate.LEXICALITIES]
ROLE_ERRORS = ("NP-Ag V-intr", "NP-Pa V-tr OBJ-Ag")


@pytest.fixture(scope="module")
def configs():
  out = {generate.config_name(*c): generate.generate(*c) for c in PAPER}
  out.update({generate.ctx_config_name(*c): generate.generate_ctx(*c)
              for c in CTX})
  return out


def _lemmas_by_form(language):
  """Every finite form and participle (Italian: in each gender and number)
  of every verb of the lexicon, to its lemmas."""
  out: dict[str, set[str]] = {}
  for v in lexicon.load(language).verbs:
    forms = {v.lemma, v.third, v.third_pl, v.participle, v.past}
    if language == "it":
      forms |= {v.participle[:-1] + e for e in "aie"}
    for f in forms - {""}:
      out.setdefault(f, set()).add(v.lemma)
  return out


@pytest.mark.full_scan  # every config at full size
def test_every_role_error_has_a_verb_that_refuses_it(configs):
  flags = {lang: {v.lemma: v.role_error
                  for v in lexicon.load(lang).verbs}
           for lang in lexicon.LANGUAGES}
  forms = {lang: _lemmas_by_form(lang) for lang in lexicon.LANGUAGES}
  bad, seen = [], 0
  for name, xs in configs.items():
    for x in xs:
      for lab, s in zip(x.labels, x.answers):
        if s.pattern not in ROLE_ERRORS:
          continue
        seen += 1
        words = " ".join(s.chunks[1:]).split()  # after the subject
        lemmas = set().union(*(forms[x.language].get(w, set())
                               for w in words))
        if not lemmas or any(flags[x.language][m] != "no" for m in lemmas):
          bad.append(f"{x.id} {lab}: {s.text} "
                     f"({sorted(lemmas) or 'no verb form'})")
  assert seen > 40000
  assert not bad, f"{len(bad)}, e.g. {bad[:5]}"


@pytest.mark.full_scan  # every config at full size
def test_no_german_intransitive_takes_haben(configs):
  bad = [f"{x.id}: {s.text}" for name, xs in configs.items()
         if name.startswith("de") for x in xs
         for s in [*x.context, *x.answers]
         if "V-intr" in s.pattern and {"hat", "haben"} & set(s.text.split())]
  assert not bad, f"{len(bad)}, e.g. {bad[:5]}"


@pytest.mark.full_scan  # every config at full size
def test_every_grammar_label_is_a_role_error(configs):
  bad = [f"{x.id}: {s.text} ({s.pattern})" for xs in configs.values()
         for x in xs for lab, s in zip(x.labels, x.answers)
         if lab == "Grammar" and s.pattern not in ROLE_ERRORS]
  assert not bad, f"{len(bad)}, e.g. {bad[:5]}"


def test_the_scan_sees_the_classes_in_the_full_lexicon():
  """With every verb of verbs.tsv, as blm_cos_plus 1.1.0 generated, the
  scan's word lists find the flagged verbs: the check can fail."""
  for language, want in (("en", {"bake", "freeze"}),
                         ("it", {"raffreddare", "seccare"}),
                         ("de", {"backen", "braten", "zerreißen"})):
    lex = lexicon.load(language)
    flagged = {v.lemma for v in lex.verbs if v.role_error != "no"}
    assert want <= flagged
    assert not flagged & {v.lemma for v in lex.cos_verbs}
    forms = _lemmas_by_form(language)
    assert all(forms[v.participle] >= {v.lemma} for v in lex.verbs
               if v.lemma in want)
