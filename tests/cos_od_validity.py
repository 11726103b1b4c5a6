"""The CoS / OD validity classes of issue 34, as one scan over generated
instances (every design shares the realiser): each returns the offending
sentences, so a test can assert none and print them."""

from __future__ import annotations

from data_builders.blm_cos_od import lexicon, realise, templates

# Theme / agent NPs that `by` (`da`) after an active verb reads as a place or
# a source ("The tailor sews by the curtains", "La nonna legge dalla
# lettera"): the test's own list, on top of the lexicons' `landmarks`.
LANDMARKS = {
    "en": {"the curtains", "the kitchen", "the floor", "the windows",
           "the car", "the field", "the fields", "the fence", "the walls",
           "the yard", "the stairs", "the streets", "the cow", "the cows",
           "the statue", "the book", "the washing machine", "the vineyards",
           "the land", "the door", "the gate", "the gates", "the window",
           "the room", "the rooms", "the road", "the river", "the wall",
           "the tunnels", "the freezer", "the tank", "the factories",
           "the offices", "the shops", "the stones", "the portrait",
           "a portrait"},
    "it": {"il libro", "la lettera", "i giornali", "il copione", "gli appunti",
           "la mappa", "le mappe", "il capitolo", "il progetto", "il ritratto",
           "il bastone", "la mucca", "le capre", "le bufale", "il bestiame",
           "il campo", "i campi", "le vigne", "il pavimento", "le scale",
           "la bistecca", "la staccionata"},
}
# "by habit" is no English adverbial ("out of habit"); an oath does not
# break with a crash or in the storm.
BAD_WORDS = {"en": ("by habit", "oath"), "it": ()}


def landmark_phrases(language: str) -> set[str]:
  marked = set(LANDMARKS[language])
  for c in templates.CLASSES:
    for v in lexicon.load(c, language).verbs:
      marked |= v.landmarks
  return {realise._by(x, language) for x in marked}


def offences(instances, language: str) -> list[tuple[str, str, str]]:
  """(instance id, class, sentence) for every sentence of the classes."""
  phrases = landmark_phrases(language)
  out = []
  for x in instances:
    for s in list(x.context) + list(x.answers):
      low = s.text.lower()
      out += [(x.id, w, s.text) for w in BAD_WORDS[language] if w in low]
      toks = s.pattern.split()
      if toks[1].startswith("V-act") and any(t.startswith("BY-")
                                             for t in toks):
        by = s.chunks[toks.index(next(t for t in toks
                                      if t.startswith("BY-")))]
        if by in phrases:
          out.append((x.id, "locative by", s.text))
  return out
