"""What every offline setting shares: the item, seeded disjoint splits, resource parsing.

A setting makes its items from a seed alone (no hub, data from installed packages). The
item carries its gold answers for scoring, but the observation a harness sees is built by
the setting from the item's public payload and the enabled resources only: gold never
enters it (tests check this for every setting).
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from tether.errors import ConfigError

SPLITS: tuple[str, ...] = ("probe", "validation", "test")
DEFAULT_SIZES: dict[str, int] = {"probe": 50, "validation": 50, "test": 200}


@dataclass(frozen=True)
class Item:
    """One question. `payload` is host-side data (how to render the image, what the
    linker sees); `answers` is the gold, read only by `score` and `gold`."""

    item_id: str
    question: str
    answers: tuple[str, ...]
    payload: Mapping[str, Any] = field(default_factory=dict)
    split: str = ""


class OfflineSetting(Protocol):
    """The interface of `tether.compile.setting.Setting`, restated so this package
    type-checks on its own."""

    name: str

    def splits(
        self, seed: int, sizes: Mapping[str, int] | None = None
    ) -> dict[str, list[Item]]: ...

    def observation(self, item: Item, resources: Mapping[str, Any]) -> dict[str, Any]: ...

    def image(self, item: Item) -> bytes | None: ...

    def score(self, answer: str, item: Item) -> float: ...

    def inventory(self) -> list[str]: ...

    def public_vocabulary(self) -> list[str]: ...

    def gold(self, item: Item) -> list[str]: ...


def resolve_sizes(sizes: Mapping[str, int] | None) -> dict[str, int]:
    """Split sizes with the defaults filled in; unknown split names are an error."""
    out = dict(DEFAULT_SIZES)
    for key, value in (sizes or {}).items():
        if key not in DEFAULT_SIZES:
            raise ConfigError(f"unknown split {key!r}", hint=f"splits are {', '.join(SPLITS)}")
        if int(value) < 0:
            raise ConfigError(f"split {key!r} has a negative size {value}")
        out[key] = int(value)
    return out


def rng_for(setting: str, seed: int, *parts: int | str) -> np.random.Generator:
    """An independent generator per (setting, seed, parts): item k of a split does not
    depend on how many items the split has, so a larger split extends a smaller one."""
    digest = hashlib.sha256(repr((setting, int(seed), *parts)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def item_id(setting: str, seed: int, split: str, index: int) -> str:
    return f"{setting}-{seed}-{split}-{index:04d}"


def check_resources(setting: str, resources: Mapping[str, Any], offered: tuple[str, ...]) -> None:
    """A resource the setting does not offer is a harness mistake, not something to ignore."""
    unknown = sorted(set(resources) - set(offered))
    if unknown:
        raise ConfigError(
            f"setting {setting!r} offers no resource {', '.join(map(repr, unknown))}",
            hint=f"{setting} offers: {', '.join(offered) or 'none'}",
        )


def int_option(spec: Any, key: str, default: int) -> int:
    """`{"max_chars": 2000}` -> 2000; `true` -> the default."""
    if isinstance(spec, Mapping) and key in spec:
        return int(spec[key])
    return default


def png_bytes(image: Any) -> bytes:
    """A PIL image as PNG bytes; PIL's encoder is deterministic for equal pixels."""
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def cut(text: str, max_chars: int) -> str:
    """Cut evidence text to a budget (the harness decides the budget, not the setting)."""
    return text if len(text) <= max_chars else text[: max(0, max_chars)]
