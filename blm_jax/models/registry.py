"""Solvers by name: each solver module declares one `SolverSpec`.

A spec is everything the library needs to know about a solver: its config
section with defaults (the only place they live), how to build its Flax
module for the data, the loss terms it returns, its data and config
checks, what probing can read from it, and how its grid runs per
platform. Adding a solver is one module that calls `register` plus one
config file that imports it; nothing else branches on a solver's name.

  from blm_jax.models import registry
  spec = registry.get(config.model.name)
  model = spec.build(config.model, config.loss, embed_dim=384,
                     num_context=7, score="dot")
"""

from __future__ import annotations

import dataclasses
import difflib
from typing import Any, Callable, Mapping


@dataclasses.dataclass(frozen=True)
class SolverSpec:
  """One solver's contract with the trainer, the configs and probing.

  Attributes:
    name: `config.model.name`.
    model: the `config.model` section without `name`: key -> default.
    loss: the `config.loss` keys of its own terms (their weights, and
      options such as a reduction): key -> default. The answer margin's
      keys are shared by every solver and are not listed here.
    build: (model_cfg, loss_cfg, *, embed_dim, num_context, score) -> the
      Flax module; `score` is `train.score`.
    loss_terms: names of the unweighted terms the module returns in
      `SolverOutput.terms`; each is weighted by `config.loss.<name>`.
    term_scales: (config, embed_dim) -> {term: factor} multiplying the
      configured weights (the VAEs' `kl_scale`); None = no scaling.
    active_terms: config -> the loss terms the module built from it
      returns (a VAE's latent kind decides its KL terms); None = all of
      `loss_terms`.
    check_data: (config, data) -> None, raising a ValueError that names
      the config key when the data cannot feed this solver.
    check_config: config -> [problem, ...], messages naming the key, for
      values `choices` cannot express.
    choices: {'section.key': accepted values} checked by config_check.
    decodes_latent: its module has `encode_latent` / `decode_latent`
      (latent traversal).
    sentence_latents: its module has `sentence_latent` (one latent per
      context sentence, projected by probing).
    region_map: its module has `region_masks` (which embedding regions
      feed which sentence latent unit; probing's 'regions').
    confusion: what probing's confusion matrices count: 'label' (the
      answers' labels) or 'pattern' (the input sentence's pattern).
    scan_on: platforms where `grid.mode='auto'` runs the cells one after
      another rather than vmapped (measured: benchmarks/README.md).
  """

  name: str
  model: Mapping[str, Any]
  build: Callable[..., Any]
  loss: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  loss_terms: tuple[str, ...] = ()
  term_scales: Callable[[Any, int], dict] | None = None
  active_terms: Callable[[Any], tuple] | None = None
  check_data: Callable[[Any, Any], None] | None = None
  check_config: Callable[[Any], list] | None = None
  choices: Mapping[str, tuple] = dataclasses.field(default_factory=dict)
  decodes_latent: bool = False
  sentence_latents: bool = False
  region_map: bool = False
  confusion: str = "label"
  scan_on: frozenset[str] = frozenset()

  def __post_init__(self):
    missing = [t for t in self.loss_terms if t not in self.loss]
    if missing:
      raise ValueError(f"solver {self.name!r}: loss terms {missing} have no "
                       "default weight in its loss section")
    if "name" in self.model:
      raise ValueError(f"solver {self.name!r}: 'name' is set by the "
                       "registry, not by the model section")
    if self.confusion not in ("label", "pattern"):
      raise ValueError(f"solver {self.name!r}: confusion="
                       f"{self.confusion!r}; expected 'label' or 'pattern'")

  def weights(self, config, embed_dim: int) -> dict[str, float]:
    """{term: weight} of the loss terms a module built from `config`
    returns, scaled by `term_scales`."""
    scales = self.term_scales(config, embed_dim) if self.term_scales else {}
    active = (self.active_terms(config) if self.active_terms
              else self.loss_terms)
    return {t: float(config.loss[t]) * scales.get(t, 1.0)
            for t in self.loss_terms if t in active}

  def scans(self, platform: str) -> bool:
    return platform in self.scan_on


_SPECS: dict[str, SolverSpec] = {}


def register(spec: SolverSpec) -> SolverSpec:
  """Adds `spec`; registering the same spec again is a no-op."""
  have = _SPECS.get(spec.name)
  if have is not None and have is not spec:
    raise ValueError(f"a solver named {spec.name!r} is already registered")
  _SPECS[spec.name] = spec
  return spec


def names() -> tuple[str, ...]:
  """Registered solver names, in registration order."""
  return tuple(_SPECS)


def unknown_message(name) -> str:
  close = difflib.get_close_matches(str(name), list(_SPECS), 1)
  hint = f" (did you mean {close[0]!r}?)" if close else ""
  return (f"config.model.name={name!r} is not a known solver{hint}; "
          f"expected one of {', '.join(repr(n) for n in _SPECS)}")


def get(name: str) -> SolverSpec:
  """The spec of solver `name`; a ValueError naming the known ones."""
  if name not in _SPECS:
    raise ValueError(unknown_message(name))
  return _SPECS[name]
