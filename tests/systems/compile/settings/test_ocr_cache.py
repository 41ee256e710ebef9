"""OCR through tesseract, cached by image digest: a second pass runs no tesseract."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from tether.systems.compile.settings.docs import DocsSetting
from tether.systems.compile.settings.ocr import OcrCache, OcrEngine

pytestmark = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="tesseract-ocr not installed (scripts/setup.sh)"
)


def test_second_pass_makes_no_tesseract_calls(tmp_path) -> None:
    setting = DocsSetting(engine=OcrEngine(OcrCache(tmp_path)))
    items = setting.splits(3, {"probe": 0, "validation": 0, "test": 3})["test"]
    first = [setting.observation(item, {"ocr": True})["ocr"] for item in items]
    assert setting.engine.calls == 3
    assert all(first)

    # A new engine on the same directory (another process, another day): all hits.
    again = DocsSetting(engine=OcrEngine(OcrCache(tmp_path)))
    second = [again.observation(item, {"ocr": True})["ocr"] for item in items]
    assert again.engine.calls == 0
    assert second == first


def test_cache_rows_are_json_in_wal_mode(tmp_path) -> None:
    cache = OcrCache(tmp_path)
    cache.put("k", {"text": "TOTAL 1.00"})
    assert cache.get("k") == {"text": "TOTAL 1.00"}
    assert cache.get("missing") is None
    conn = sqlite3.connect(cache.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT row FROM ocr").fetchone()[0] == '{"text": "TOTAL 1.00"}'


def test_ocr_options_are_part_of_the_key(tmp_path) -> None:
    cache = OcrCache(tmp_path)
    assert OcrEngine(cache, psm=6).key(b"x") != OcrEngine(cache, psm=4).key(b"x")
