"""Turning a hypothetical's pattern plus adjectives into a chunked Sentence.

A pattern has the slots `Prem` (tense, person-number of the premise verb),
`PremA` (gender, number of the premise's participle and adjective),
optionally `Inc` (gender, number of an incidental clause's noun: the
mixture's attractor), `Cons` and `ConsA` (the same for the consequent):

    Prem-CTrPas-2pl PremA-f-pl Cons-CnPas-2pl ConsA-f-pl
    "Se foste state oneste, allora sareste state contente."

Chunks: the premise with its comma, the incidental with its comma (when
present), the consequent, "." (so chunk i realises clause i).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from data_builders.blm_sequence_of_tense import italian
from data_builders.common.schema import Sentence
from data_builders.common.template import Pattern, realised

PREM, PREM_A, INC, CONS, CONS_A = "Prem", "PremA", "Inc", "Cons", "ConsA"


@dataclasses.dataclass(frozen=True)
class Filler:
  """The words of one sentence; `incidental(gender, number)` writes the
  incidental clause around a noun of those features."""

  premise: italian.Adjective
  consequent: italian.Adjective
  incidental: Callable[[str, str], str] | None = None


def clause(pat: Pattern, verb: str, adj_role: str,
           adjective: italian.Adjective) -> str:
  v, a = pat.slot(verb), pat.slot(adj_role)
  gender, number = a.get("gen"), a.get("num")
  return (f"{italian.copula(v.get('tense'), v.get('pn'), gender, number)} "
          f"{adjective.form(gender, number)}")


def chunks(pat: Pattern, f: Filler) -> tuple[str, ...]:
  out = [italian.capitalise(f"se {clause(pat, PREM, PREM_A, f.premise)},")]
  if pat.has(INC):
    if f.incidental is None:
      raise ValueError(f"pattern {pat} has an incidental clause but the "
                       "filler has none")
    inc = pat.slot(INC)
    out.append(f"{f.incidental(inc.get('gen'), inc.get('num'))},")
  out.append(f"allora {clause(pat, CONS, CONS_A, f.consequent)}")
  return tuple(out) + (".",)


def sentence(pat: Pattern, f: Filler) -> Sentence:
  chs = chunks(pat, f)
  return realised(" ".join(chs[:-1]) + chs[-1], pat, chs)
