"""The contract every offline setting meets, checked by one helper per setting test."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

SIZES = {"probe": 4, "validation": 4, "test": 8}


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True).casefold()


def assert_common_contract(setting, resources: dict[str, Any], sizes=SIZES) -> None:
    """Disjoint sized splits, determinism by seed, no gold in observations, metric ceiling."""
    splits = setting.splits(7, sizes)
    assert {k: len(v) for k, v in splits.items()} == sizes
    ids = [item.item_id for items in splits.values() for item in items]
    assert len(ids) == len(set(ids)), "item ids repeat across splits"
    for name, items in splits.items():
        assert all(item.data["split"] == name for item in items)

    again = setting.splits(7, sizes)
    assert again == splits, "same seed, different items"
    other = setting.splits(8, sizes)
    assert [i.question for i in other["test"]] != [i.question for i in splits["test"]] or [
        i.data for i in other["test"]
    ] != [i.data for i in splits["test"]]

    sample = splits["probe"][:2] + splits["test"][:2]
    for item in sample:
        obs = setting.observation(item, resources)
        assert obs["item_id"] == item.item_id and obs["question"] == item.question
        assert obs == setting.observation(item, resources), "observation not deterministic"
        json.dumps(obs)  # observations cross the sandbox as JSON
        assert setting.score(setting.gold(item)[0], item) == 1.0
        assert setting.score("", item) == 0.0
        image = setting.image(item)
        assert image is None or image == setting.image(item)
    # No gold in observations: the gold must not appear in the observation beyond what
    # the question itself says, for items whose gold is not in their own question.
    _assert_no_gold_fields(setting, sample, resources)


def _assert_no_gold_fields(setting, items, resources) -> None:
    """The observation must not depend on the gold: replacing an item's answers with a
    sentinel changes nothing in it, and no field is named like gold."""
    for item in items:
        obs = setting.observation(item, resources)
        assert not set(obs) & {"answer", "answers", "gold", "data", "spec"}, set(obs)
        swapped = dataclasses.replace(item, data={**item.data, "answers": ("QQSENTINELQQ",)})
        assert setting.observation(swapped, resources) == obs
        assert "qqsentinelqq" not in _text(obs)
