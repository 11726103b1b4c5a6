"""The sequence-necessary spray/load design (configs `seq_type_*`).

Every sentence of 000 Figure 5's template is one cell of two attributes:
the alternant (ATL: the theme is the object or the passive subject; ALT: the
location is) and the form (the active, or a passive keeping {agent},
{PP, agent} or {PP}, the three passives of Figure 5). The paper's context
walks these eight cells in one fixed order. Here the order is a rule drawn
per instance, one progression per attribute:

- the alternant switches every `block` sentences (1, 2, 3 or 4; the paper's
  context switches after 1 and then every 3), from a drawn phase and a drawn
  first alternant;
- the form cycles through the four forms in a drawn cyclic order (6),
  advancing every `step` sentences (1 or 2), from a drawn phase.

Sentences 1-7 are the context, the eighth is the answer. Within this family
the seven context cells always determine the eighth (`determinacy`), while
no single sentence and no pair of sentences does: grouping by any one or two
context cells, the most frequent answer cell is right at most 0.29 / 0.47 of
the time (exact, over the rule distribution; `position_majority`).

The answer set holds the eight cells (the correct one and the continuations
the other rules predict; each named by what it changes relative to the
correct cell: WALT the alternant, WFORM-<form> the form shown instead) and
the paper's eight rule-breaking candidates (000 Figure 4), built on one
active cell drawn 50/50 apart from the rule, so that they do not point at the
answer; a rule-breaking candidate's label names its base, then the rule.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import random
from typing import Iterable

from data_builders.blm_spray_load import templates
from data_builders.common.template import Pattern, answer_patterns

N_POSITIONS = 8  # 7 context sentences and the answer.
ALTERNANTS = ("ATL", "ALT")
# The forms: the active and the three passives of 000 Figure 5 (which PPs
# each keeps, as in templates.PASSIVE_KEEPS).
FORMS = ("ACT", "PASS-BY", "PASS-PP-BY", "PASS-PP")
_KEEPS = dict(zip(FORMS[1:], templates.PASSIVE_KEEPS))
BLOCKS = (1, 2, 3, 4)
STEPS = (1, 2)

SEQ_FAMILY = "spray_load_seq"
SEQ_SUBSET = "seq"
CORRECT = templates.CORRECT
WALT = "WALT"


@dataclasses.dataclass(frozen=True)
class Rule:
  """One instance's progression; `cells()` gives the 8 (alternant, form)."""

  block: int          # The alternant switches every `block` sentences...
  alt_phase: int      # ...shifted by this many sentences (0 .. 2*block-1),
  first_alt: int      # ...starting from this alternant (index).
  order: tuple[int, ...]  # The forms' cyclic order (indices of FORMS).
  step: int           # The form advances every `step` sentences...
  form_phase: int     # ...shifted by this many (0 .. 4*step-1).

  def cells(self) -> tuple[tuple[str, str], ...]:
    out = []
    for i in range(N_POSITIONS):
      a = ((i + self.alt_phase) // self.block + self.first_alt) % 2
      f = self.order[((i + self.form_phase) // self.step) % len(FORMS)]
      out.append((ALTERNANTS[a], FORMS[f]))
    return tuple(out)


def _cyclic_orders() -> tuple[tuple[int, ...], ...]:
  return tuple((0,) + p for p in itertools.permutations(range(1, len(FORMS))))


def all_rules() -> Iterable[tuple[Rule, float]]:
  """Every rule with its probability under `draw_rule`."""
  orders = _cyclic_orders()
  for block in BLOCKS:
    for alt_phase in range(2 * block):
      for first in (0, 1):
        pa = 1 / (len(BLOCKS) * 2 * block * 2)
        for order in orders:
          for step in STEPS:
            for phase in range(len(FORMS) * step):
              pf = 1 / (len(orders) * len(STEPS) * len(FORMS) * step)
              yield Rule(block, alt_phase, first, order, step, phase), pa * pf


def draw_rule(rng: random.Random) -> Rule:
  """The rule of one instance: each parameter uniform given the ones before."""
  block = rng.choice(BLOCKS)
  step = rng.choice(STEPS)
  return Rule(block=block, alt_phase=rng.randrange(2 * block),
              first_alt=rng.randrange(2), order=rng.choice(_cyclic_orders()),
              step=step, form_phase=rng.randrange(len(FORMS) * step))


@functools.lru_cache(maxsize=None)
def cell_pattern(alternant: str, form: str) -> Pattern:
  active = templates.ATL if alternant == "ATL" else templates.ALT
  if form == "ACT":
    return active
  comp_role = active.slots[3].get("arg")
  return templates.passivise(active, tuple(
      comp_role if r is None else r for r in _KEEPS[form]))


CELLS = tuple(itertools.product(ALTERNANTS, FORMS))


def cell_label(cell: tuple[str, str], correct: tuple[str, str]) -> str:
  """CORRECT, WALT, WFORM-<form> or WALT-WFORM-<form>: what `cell` changes
  relative to the correct cell."""
  parts = []
  if cell[0] != correct[0]:
    parts.append(WALT)
  if cell[1] != correct[1]:
    parts.append(f"WFORM-{cell[1]}")
  return "-".join(parts) or CORRECT


def error_label(base_label: str, rule: str) -> str:
  return rule if base_label == CORRECT else f"{base_label}-{rule}"


def _labels() -> tuple[str, ...]:
  cells = [CORRECT, WALT] + [f"{w}WFORM-{f}" for w in ("", f"{WALT}-")
                             for f in FORMS]
  bases = [CORRECT, WALT, "WFORM-ACT", "WALT-WFORM-ACT"]
  errors = [error_label(b, t.label) for b in bases
            for t in templates.ANSWER_TEMPLATES[1:]]
  return tuple(cells + errors)


SEQ_LABELS = _labels()


@functools.lru_cache(maxsize=None)
def seq_patterns(rule: Rule, error_base: str
                 ) -> tuple[tuple[Pattern, ...], dict[str, Pattern]]:
  """(7 context patterns, label -> answer pattern) of `rule`, the paper's
  rule-breaking answers built on the active cell of alternant `error_base`."""
  cells = rule.cells()
  context = tuple(cell_pattern(*c) for c in cells[:-1])
  correct = cells[-1]
  answers = {cell_label(c, correct): cell_pattern(*c) for c in CELLS}
  base = (error_base, "ACT")
  wrong = answer_patterns(cell_pattern(*base), templates.ANSWER_TEMPLATES,
                          templates.RULES)
  base_label = cell_label(base, correct)
  answers.update((error_label(base_label, lab), p)
                 for lab, p in wrong.items() if lab != CORRECT)
  return context, answers


# --- Exact pattern-level checks over the rule distribution. -----------------

def _cell_distribution() -> dict[tuple, float]:
  out: dict[tuple, float] = {}
  for rule, p in all_rules():
    cells = rule.cells()
    out[cells] = out.get(cells, 0.0) + p
  return out


def determinacy() -> float:
  """Probability that the 7 context cells admit exactly one eighth cell."""
  answers: dict[tuple, set] = {}
  dist = _cell_distribution()
  for cells in dist:
    answers.setdefault(cells[:-1], set()).add(cells[-1])
  return sum(p for cells, p in dist.items() if len(answers[cells[:-1]]) == 1)


def position_majority(positions: tuple[int, ...]) -> float:
  """How often the most frequent answer cell given the cells at `positions`
  (context indices 0-6) is the answer: 1.0 means those positions decide."""
  groups: dict[tuple, dict] = {}
  for cells, p in _cell_distribution().items():
    g = groups.setdefault(tuple(cells[i] for i in positions), {})
    g[cells[-1]] = g.get(cells[-1], 0.0) + p
  return sum(max(g.values()) for g in groups.values())
