"""Which Refiner a scene strategy uses, by name: "vetr" (the seed's Algorithm 1,
`tether.scene.refine.refine`, imported lazily) or "off" (`refiner_off`, the ablation)."""

from __future__ import annotations

from tether.errors import ConfigError
from tether.scene.record import Refiner, refiner_off

REFINERS = ("vetr", "off")


def resolve_refiner(name: str) -> Refiner:
    if name == "off":
        return refiner_off
    if name != "vetr":
        raise ConfigError(f"unknown refiner {name!r}", hint=f"one of {', '.join(REFINERS)}")
    try:
        from tether.scene.refine import refine  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        raise ConfigError(
            "the VETR refiner (tether.scene.refine) is not installed in this tether",
            hint='use refiner = "off" for the ablation without it',
        ) from exc
    return refine  # type: ignore[no-any-return,unused-ignore]
