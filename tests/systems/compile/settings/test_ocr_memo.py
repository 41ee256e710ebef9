"""Warm OCR lookups draw each page once per process (the memo above the image-keyed
cache), and a page drawn differently gets its own key. No tesseract: the cache is
filled with the rendered pages' own keys first, and the engine's binary does not exist,
so any miss would raise."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from tether.errors import ConfigError
from tether.systems.compile.settings.docs import DocsSetting
from tether.systems.compile.settings.ocr import OcrCache, OcrEngine


def _warm(tmp_path) -> tuple[DocsSetting, OcrCache]:
    cache = OcrCache(tmp_path)
    return DocsSetting(engine=OcrEngine(cache, binary="no-such-tesseract")), cache


def test_repeated_lookups_of_an_item_draw_its_page_once(tmp_path) -> None:
    docs, cache = _warm(tmp_path)
    items = docs.splits(3, {"probe": 0, "validation": 0, "test": 2})["test"]
    for item in items:
        cache.put(docs.engine.key(docs.image(item)), {"text": f"TOTAL of {item.item_id}"})
    texts = [docs.ocr_text(item) for _ in range(4) for item in items]
    assert texts == [f"TOTAL of {item.item_id}" for item in items] * 4
    assert docs.engine.renders == 2 and docs.engine.calls == 0
    # another engine (another process) draws again: the memo is never persisted
    again = DocsSetting(engine=OcrEngine(OcrCache(tmp_path), binary="no-such-tesseract"))
    assert again.ocr_text(items[0]) == texts[0] and again.engine.renders == 1


def test_a_page_drawn_differently_is_looked_up_under_its_own_image(tmp_path) -> None:
    docs, cache = _warm(tmp_path)
    item = docs.splits(3, {"probe": 0, "validation": 0, "test": 1})["test"][0]
    cache.put(docs.engine.key(docs.image(item)), {"text": "first page"})
    assert docs.ocr_text(item) == "first page"
    data = copy.deepcopy(dict(item.data))
    data["spec"]["font_px"] += 2
    redrawn = dataclasses.replace(item, data=data)
    assert docs.image(redrawn) != docs.image(item)
    with pytest.raises(ConfigError, match="tesseract"):  # a miss: it would run tesseract
        docs.ocr_text(redrawn)
    cache.put(docs.engine.key(docs.image(redrawn)), {"text": "second page"})
    assert docs.ocr_text(redrawn) == "second page" and docs.ocr_text(item) == "first page"
