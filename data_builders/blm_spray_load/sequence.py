"""The sequence-necessary spray/load design (configs `seq_type_*`).

Every sentence of 000 Figure 5's template is one cell of two attributes:
the alternant (ATL: the theme is the object or the passive subject; ALT: the
location is) and the form (the active, or a passive keeping {agent},
{PP, agent} or {PP}, the three passives of Figure 5); a third attribute,
orthogonal to the paper's rule, is the polarity (affirmative or negated:
"will hang" / "won't hang", "will be hung" / "won't be hung"). The paper's
context walks the eight alternant x form cells in one fixed order. Here the
order is a rule drawn per instance, one progression per attribute:

- the alternant switches every `block` sentences (1, 2, 3 or 4; the paper's
  context switches after 1 and then every 3), from a drawn phase and a drawn
  first alternant;
- the form cycles through the four forms in a drawn cyclic order (6),
  advancing every `step` sentences (1 or 2), from a drawn phase;
- the polarity is constant or switches every `pol_block` sentences (1, 2, 3
  or 4), from a drawn phase and a drawn first polarity.

Sentences 1-7 are the context, the eighth is the answer. Within this family
the seven context cells always determine the eighth (`determinacy`), while
no single sentence and no pair of sentences does (`position_majority`,
exact over the rule distribution; the attributes are drawn independently,
so it is the product of the attributes' own).

The answer set holds the 16 cells (the correct one and the continuations
the other rules predict; each named by what it changes relative to the
correct cell: WALT the alternant, WPOL the polarity, WFORM-<form> the form
shown instead) and the paper's eight rule-breaking candidates (000 Figure
4), built on one active cell whose alternant and polarity are drawn 50/50
apart from the rule, so that they do not point at the answer; a
rule-breaking candidate's label names its base, then the rule.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import random
from typing import Sequence

from data_builders.blm_spray_load import realise, templates
from data_builders.common.template import Pattern, answer_patterns

N_POSITIONS = 8  # 7 context sentences and the answer.
ALTERNANTS = ("ATL", "ALT")
# The forms: the active and the three passives of 000 Figure 5 (which PPs
# each keeps, as in templates.PASSIVE_KEEPS).
FORMS = ("ACT", "PASS-BY", "PASS-PP-BY", "PASS-PP")
_KEEPS = dict(zip(FORMS[1:], templates.PASSIVE_KEEPS))
POLARITIES = (realise.AFF, realise.NEG)
BLOCKS = (1, 2, 3, 4)
STEPS = (1, 2)
POL_BLOCKS = (0,) + BLOCKS  # 0: the polarity stays constant.

SEQ_FAMILY = "spray_load_seq"
SEQ_SUBSET = "seq"
CORRECT = templates.CORRECT
WALT = "WALT"
WPOL = "WPOL"


def _switching(block: int, phase: int, first: int) -> tuple[int, ...]:
  """The 8 positions' values (0/1) of an attribute that starts at `first`
  and switches every `block` positions, shifted by `phase` (block 0:
  never)."""
  return tuple(first if block == 0 else ((i + phase) // block + first) % 2
               for i in range(N_POSITIONS))


def _cycling(order: tuple[int, ...], step: int, phase: int
             ) -> tuple[int, ...]:
  """The 8 positions' values of an attribute cycling through `order`,
  advancing every `step` positions, shifted by `phase`."""
  return tuple(order[((i + phase) // step) % len(order)]
               for i in range(N_POSITIONS))


@dataclasses.dataclass(frozen=True)
class Rule:
  """One instance's progression; `cells()` gives the 8 (alternant, form,
  polarity)."""

  block: int          # The alternant switches every `block` sentences...
  alt_phase: int      # ...shifted by this many sentences (0 .. 2*block-1),
  first_alt: int      # ...starting from this alternant (index).
  order: tuple[int, ...]  # The forms' cyclic order (indices of FORMS).
  step: int           # The form advances every `step` sentences...
  form_phase: int     # ...shifted by this many (0 .. 4*step-1).
  pol_block: int      # The polarity switches every `pol_block` (0: never)...
  pol_phase: int      # ...shifted by this many (0 .. 2*pol_block-1),
  first_pol: int      # ...starting from this polarity (index).

  def cells(self) -> tuple[tuple[str, str, str], ...]:
    return tuple(zip(
        (ALTERNANTS[a] for a in _switching(self.block, self.alt_phase,
                                           self.first_alt)),
        (FORMS[f] for f in _cycling(self.order, self.step, self.form_phase)),
        (POLARITIES[p] for p in _switching(self.pol_block, self.pol_phase,
                                           self.first_pol))))


def _cyclic_orders() -> tuple[tuple[int, ...], ...]:
  return tuple((0,) + p for p in itertools.permutations(range(1, len(FORMS))))


def _switching_rules(blocks, values) -> list[tuple[tuple[str, ...], float]]:
  """The sequences of a switching attribute with their probability: block
  uniform, then phase and first value uniform (block 0 has one phase)."""
  out = []
  for block in blocks:
    phases = max(1, 2 * block)
    out += [(tuple(values[v] for v in _switching(block, phase, first)),
             1 / (len(blocks) * phases * 2))
            for phase in range(phases) for first in (0, 1)]
  return out


ATTRIBUTES = ("alternant", "form", "polarity")  # A cell's order.


@functools.lru_cache(maxsize=None)
def attribute_rules() -> dict[str, list[tuple[tuple[str, ...], float]]]:
  """Each attribute's 8-position sequences with their probability under
  `draw_rule` (the three are drawn independently), keyed by ATTRIBUTES."""
  orders = _cyclic_orders()
  forms = [(tuple(FORMS[f] for f in _cycling(order, step, phase)),
            1 / (len(orders) * len(STEPS) * len(FORMS) * step))
           for order in orders for step in STEPS
           for phase in range(len(FORMS) * step)]
  return {"alternant": _switching_rules(BLOCKS, ALTERNANTS), "form": forms,
          "polarity": _switching_rules(POL_BLOCKS, POLARITIES)}


def draw_rule(rng: random.Random) -> Rule:
  """The rule of one instance: each parameter uniform given the ones before
  (the polarity's drawn last, from the same stream)."""
  block = rng.choice(BLOCKS)
  step = rng.choice(STEPS)
  alt_phase, first_alt = rng.randrange(2 * block), rng.randrange(2)
  order = rng.choice(_cyclic_orders())
  form_phase = rng.randrange(len(FORMS) * step)
  pol_block = rng.choice(POL_BLOCKS)
  return Rule(block=block, alt_phase=alt_phase, first_alt=first_alt,
              order=order, step=step, form_phase=form_phase,
              pol_block=pol_block,
              pol_phase=rng.randrange(2 * pol_block) if pol_block else 0,
              first_pol=rng.randrange(2))


# The extrapolation regime (`seq_extrap_type_*`): the alternant switching
# every EXTRAP_BLOCK sentences is in test only; training sees the others.
EXTRAP_BLOCK = 4


def alternant_block(cells: Sequence[tuple[str, str, str]]) -> int:
  """The alternant's block over the eight cells: its longest run (every
  block of BLOCKS shows one whole run in eight sentences, whatever its
  phase)."""
  longest = run = 1
  for a, b in zip(cells, cells[1:]):
    run = run + 1 if a[0] == b[0] else 1
    longest = max(longest, run)
  return longest


@functools.lru_cache(maxsize=None)
def _cell_of_pattern() -> dict[str, tuple[str, str, str]]:
  return {str(cell_pattern(*c)): c for c in CELLS}


def instance_cells(inst) -> tuple[tuple[str, str, str], ...]:
  """The eight cells (context, then the correct answer) an instance's
  patterns show."""
  cell_of = _cell_of_pattern()
  patterns = [s.pattern for s in inst.context] + [inst.correct_answer.pattern]
  missing = [p for p in patterns if p not in cell_of]
  if missing:
    raise ValueError(f"instance {inst.id!r}: pattern {missing[0]!r} is no "
                     "spray/load cell")
  return tuple(cell_of[p] for p in patterns)


def extrapolated(inst) -> bool:
  """Whether the instance's alternant switches every EXTRAP_BLOCK
  sentences (the extrapolation regime's test)."""
  return alternant_block(instance_cells(inst)) == EXTRAP_BLOCK


def with_polarity(p: Pattern, polarity: str) -> Pattern:
  """`p` with its verb (active or passive) marked affirmative or negated."""
  return p.set("Verb" if p.has("Verb") else "VerbPass", pol=polarity)


@functools.lru_cache(maxsize=None)
def cell_pattern(alternant: str, form: str, polarity: str) -> Pattern:
  active = templates.ATL if alternant == "ATL" else templates.ALT
  if form != "ACT":
    comp_role = active.slots[3].get("arg")
    active = templates.passivise(active, tuple(
        comp_role if r is None else r for r in _KEEPS[form]))
  return with_polarity(active, polarity)


CELLS = tuple(itertools.product(ALTERNANTS, FORMS, POLARITIES))


def cell_label(cell: tuple[str, str, str], correct: tuple[str, str, str]
               ) -> str:
  """CORRECT, or what `cell` changes relative to the correct cell, in this
  order: WALT, WPOL, WFORM-<form> (e.g. WALT-WPOL-WFORM-PASS-BY)."""
  parts = []
  if cell[0] != correct[0]:
    parts.append(WALT)
  if cell[2] != correct[2]:
    parts.append(WPOL)
  if cell[1] != correct[1]:
    parts.append(f"WFORM-{cell[1]}")
  return "-".join(parts) or CORRECT


def error_label(base_label: str, rule: str) -> str:
  return rule if base_label == CORRECT else f"{base_label}-{rule}"


def _labels() -> tuple[str, ...]:
  """The inventory: builder 1.2.0's 42 labels (same polarity as CORRECT)
  keep their ids, the 42 with WPOL follow."""
  out = []
  for pol in ("", f"{WPOL}-"):
    cells = [f"{w}{pol}WFORM-{f}" for w in ("", f"{WALT}-") for f in FORMS]
    bases = [pol.rstrip("-") or CORRECT, f"{WALT}-{pol}".rstrip("-"),
             f"{pol}WFORM-ACT", f"{WALT}-{pol}WFORM-ACT"]
    errors = [error_label(b, t.label) for b in bases
              for t in templates.ANSWER_TEMPLATES[1:]]
    out += bases[:2] + cells + errors
  return tuple(out)


SEQ_LABELS = _labels()


@functools.lru_cache(maxsize=None)
def seq_patterns(rule: Rule, error_base: tuple[str, str]
                 ) -> tuple[tuple[Pattern, ...], dict[str, Pattern]]:
  """(7 context patterns, label -> answer pattern) of `rule`, the paper's
  rule-breaking answers built on the active cell of `error_base` =
  (alternant, polarity)."""
  cells = rule.cells()
  context = tuple(cell_pattern(*c) for c in cells[:-1])
  correct = cells[-1]
  answers = {cell_label(c, correct): cell_pattern(*c) for c in CELLS}
  base = (error_base[0], "ACT", error_base[1])
  # AGENTACT replaces the verb: the polarity is set again on every error.
  wrong = answer_patterns(cell_pattern(*base), templates.ANSWER_TEMPLATES,
                          templates.RULES)
  base_label = cell_label(base, correct)
  answers.update((error_label(base_label, lab), with_polarity(p, base[2]))
                 for lab, p in wrong.items() if lab != CORRECT)
  return context, answers


# --- Exact pattern-level checks over the rule distribution. -----------------
# The attributes are drawn independently, so a cell sequence's probability
# is the product of its attributes' and both checks below are the product of
# the attributes' own (grouping by cells groups by each attribute at once).

def attribute_majority(seqs, positions: tuple[int, ...]) -> float:
  """`position_majority` of one attribute's `attribute_rules()` sequences."""
  groups: dict[tuple, dict] = {}
  for seq, p in seqs:
    g = groups.setdefault(tuple(seq[i] for i in positions), {})
    g[seq[-1]] = g.get(seq[-1], 0.0) + p
  return sum(max(g.values()) for g in groups.values())


def attribute_determinacy(seqs) -> float:
  """`determinacy` of one attribute's `attribute_rules()` sequences."""
  answers: dict[tuple, set] = {}
  for seq, _ in seqs:
    answers.setdefault(seq[:-1], set()).add(seq[-1])
  return sum(p for seq, p in seqs if len(answers[seq[:-1]]) == 1)


def determinacy() -> float:
  """Probability that the 7 context cells admit exactly one eighth cell."""
  return math.prod(attribute_determinacy(s)
                   for s in attribute_rules().values())


def position_majority(positions: tuple[int, ...]) -> float:
  """How often the most frequent answer cell given the cells at `positions`
  (context indices 0-6) is the answer: 1.0 means those positions decide."""
  return math.prod(attribute_majority(s, positions)
                   for s in attribute_rules().values())


def continuations(context: tuple[tuple[str, str, str], ...]
                  ) -> set[tuple[str, str, str]]:
  """Every eighth cell some rule of the family gives after `context`."""
  per_attr = []
  for a, name in enumerate(ATTRIBUTES):
    shown = tuple(c[a] for c in context)
    per_attr.append({seq[-1] for seq, _ in attribute_rules()[name]
                     if seq[:-1] == shown})
  return set(itertools.product(*per_attr))
