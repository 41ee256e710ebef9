"""The pieces every offline setting shares (settings/base.py)."""

from __future__ import annotations

import threading
import time

import pytest

from tether.errors import ConfigError
from tether.systems.compile.settings.base import (
    ImageMemo,
    Item,
    make_splits,
    new_observation,
)


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


def test_a_page_asked_for_while_it_is_drawn_is_drawn_once() -> None:
    memo = ImageMemo()
    drawing, release = threading.Event(), threading.Event()

    def draw() -> bytes:
        drawing.set()
        assert release.wait(10)
        return b"page"

    got: list[bytes] = []
    first = threading.Thread(target=lambda: got.append(memo.get({"p": 1}, draw)))
    first.start()
    assert drawing.wait(10)
    # asked again while the first drawing runs: it waits for those bytes
    second = threading.Thread(target=lambda: got.append(memo.get({"p": 1}, draw)))
    second.start()
    time.sleep(0.1)  # for the second asker to reach the memo while the first draws
    release.set()
    first.join(10), second.join(10)
    assert got == [b"page", b"page"] and memo.draws == 1


def test_a_failed_drawing_leaves_the_page_to_the_next_asker() -> None:
    memo = ImageMemo()
    drawing, release = threading.Event(), threading.Event()

    def fails() -> bytes:
        drawing.set()
        assert release.wait(10)
        raise OSError("no font")

    errors: list[BaseException] = []

    def first() -> None:
        try:
            memo.get({"p": 1}, fails)
        except OSError as exc:
            errors.append(exc)

    got: list[bytes] = []
    threads = [threading.Thread(target=first)]
    threads[0].start()
    assert drawing.wait(10)
    threads.append(threading.Thread(target=lambda: got.append(memo.get({"p": 1},
                                                                       lambda: b"page"))))
    threads[1].start()
    release.set()
    for thread in threads:
        thread.join(10)
    # the waiting asker drew it itself
    assert len(errors) == 1 and got == [b"page"] and memo.draws == 1
