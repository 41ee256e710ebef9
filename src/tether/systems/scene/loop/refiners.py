"""Which Refiner a scene strategy uses, by name: "vetr" (the paper's Algorithm 1,
`tether.systems.scene.refiner.refine`) or "off" (`refiner_off`, the ablation)."""

from __future__ import annotations

from tether.errors import ConfigError
from tether.systems.scene.record import Refiner, refiner_off
from tether.systems.scene.refiner import refine

REFINERS = ("vetr", "off")


def resolve_refiner(name: str) -> Refiner:
    if name == "off":
        return refiner_off
    if name != "vetr":
        raise ConfigError(f"unknown refiner {name!r}", hint=f"one of {', '.join(REFINERS)}")
    return refine
