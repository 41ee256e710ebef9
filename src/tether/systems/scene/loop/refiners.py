"""Which Refiner a scene strategy uses, by name: "vetr" (the paper's Algorithm 1,
`tether.systems.scene.refiner.refine`, with its projection scope) or "off"
(`refiner_off`, the ablation)."""

from __future__ import annotations

from functools import partial

from tether.errors import ConfigError
from tether.systems.scene.record import Refiner, refiner_off
from tether.systems.scene.refiner import DEFAULT_PROJECTION_SCOPE, PROJECTION_SCOPES, refine

REFINERS = ("vetr", "off")


def resolve_refiner(name: str, projection_scope: str = DEFAULT_PROJECTION_SCOPE) -> Refiner:
    if name == "off":
        return refiner_off
    if name != "vetr":
        raise ConfigError(f"unknown refiner {name!r}", hint=f"one of {', '.join(REFINERS)}")
    if projection_scope not in PROJECTION_SCOPES:
        raise ConfigError(f"unknown projection_scope {projection_scope!r}",
                          hint=f"one of {', '.join(PROJECTION_SCOPES)}")
    return partial(refine, projection_scope=projection_scope)
