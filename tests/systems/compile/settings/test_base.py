"""The pieces every offline setting shares (settings/base.py)."""

from __future__ import annotations

import pytest

from tether.errors import ConfigError
from tether.systems.compile.settings.base import Item, make_splits, new_observation


def _item(seed: int, split: str, index: int) -> Item:
    return Item(f"{seed}-{split}-{index}", f"q{index}", {"answers": ["a"], "split": split})


def test_make_splits_makes_each_split_in_index_order_at_its_size():
    splits = make_splits(_item, 3, {"probe": 2, "validation": 0, "test": 3})
    assert {k: [i.item_id for i in v] for k, v in splits.items()} == {
        "probe": ["3-probe-0", "3-probe-1"],
        "validation": [],
        "test": ["3-test-0", "3-test-1", "3-test-2"],
    }


def test_make_splits_refuses_an_unknown_split():
    with pytest.raises(ConfigError, match="unknown split 'train'"):
        make_splits(_item, 3, {"train": 2})


def test_new_observation_carries_id_and_question_but_not_the_gold():
    obs = new_observation("demo", _item(1, "test", 4), {"ocr": True}, ("ocr",))
    assert obs == {"item_id": "1-test-4", "question": "q4"}


def test_new_observation_refuses_a_resource_the_setting_does_not_offer():
    with pytest.raises(ConfigError):
        new_observation("demo", _item(1, "test", 4), {"pages": {}}, ("ocr",))
