"""The `toy` harness setting, a test double: twenty capital-city and sum questions with
fixed gold and no image, for the compile's tests and for trying `tether compile` and
`tether harness` without a model or a dataset (`--setting toy`). It is not a benchmark.
It stays in the compile system, beside the settings it stands in for: the setting
registry is not one of the doors through which product code may reach `tether.testing`.

Resources: `hint` adds the first letter of the answer (a stand-in for evidence the
harness may enable), `signals` adds the two operands of a sum. Metric: case-folded exact
match. Declared under the `tether.settings` entry points as the other bundled settings
are.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from tether.systems.compile.setting import SPLITS, Item

__all__ = ["ToySetting"]

_CAPITALS = {"France": "Paris", "Japan": "Tokyo", "Kenya": "Nairobi", "Peru": "Lima",
             "Norway": "Oslo", "Chile": "Santiago", "Egypt": "Cairo", "Canada": "Ottawa"}


class ToySetting:
    """Test double: capital-city and sum questions, gold fixed, no image: for trying
    `tether compile` and `tether harness` without a model or a dataset."""

    name = "toy"
    offered_resources: tuple[str, ...] = ("hint", "signals")

    def _items(self) -> list[Item]:
        items = [Item(f"cap-{country.lower()}", f"What is the capital of {country}?",
                      {"answer": city, "kind": "capital"})
                 for country, city in _CAPITALS.items()]
        for a in range(2, 14):
            b = (a * 7) % 11 + 1
            items.append(Item(f"sum-{a}-{b}", f"What is {a} plus {b}?",
                              {"answer": str(a + b), "kind": "sum", "operands": [a, b]}))
        return items

    def __len__(self) -> int:
        """20 items (a command without size flags fits its splits to them)."""
        return len(self._items())

    def splits(self, seed: int, sizes: Mapping[str, int]) -> dict[str, list[Item]]:
        items = self._items()
        random.Random(seed).shuffle(items)
        out: dict[str, list[Item]] = {}
        start = 0
        for split in SPLITS:
            n = int(sizes.get(split, 0))
            out[split] = items[start:start + n]
            start += n
        return out  # 20 items in all: later splits come up short when more are asked

    def observation(self, item: Item, resources: Mapping[str, Any]) -> dict[str, Any]:
        obs: dict[str, Any] = {"item_id": item.item_id, "question": item.question}
        if resources.get("hint"):
            obs["hint"] = f"The answer starts with {item.data['answer'][0]!r}."
        if resources.get("signals") and item.data["kind"] == "sum":
            obs["signals"] = {"a": item.data["operands"][0], "b": item.data["operands"][1]}
        return obs

    def image(self, item: Item) -> bytes | None:
        return None

    def score(self, answer: str, item: Item) -> float:
        return float(answer.strip().casefold() == str(item.data["answer"]).casefold())

    def inventory(self) -> list[str]:
        return [*_CAPITALS, *_CAPITALS.values()]

    def public_vocabulary(self) -> list[str]:
        return ["yes", "no"]

    def gold(self, item: Item) -> list[str]:
        return [str(item.data["answer"])]
