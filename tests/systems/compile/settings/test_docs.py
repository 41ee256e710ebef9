"""The `docs` setting: splits, determinism, no gold in observations, hooks-only score."""

from __future__ import annotations

import shutil

import pytest

from tether.errors import ConfigError
from tether.systems.compile import get_setting, setting_names
from tether.systems.compile.settings.docs import DocsSetting, ocr_rule
from tether.systems.compile.settings.hooks_only import hooks_only_score
from tether.systems.compile.settings.ocr import OcrCache, OcrEngine

from .conftest import assert_common_contract

needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="tesseract-ocr not installed"
)


@pytest.fixture
def docs(tmp_path) -> DocsSetting:
    return DocsSetting(engine=OcrEngine(OcrCache(tmp_path)))


def test_common_contract_without_ocr(docs) -> None:
    assert_common_contract(docs, resources={})


@needs_tesseract
def test_observation_with_ocr_has_no_gold_field_and_is_cut(docs) -> None:
    item = docs.splits(1, {"probe": 1, "validation": 0, "test": 0})["probe"][0]
    obs = docs.observation(item, {"ocr": {"max_chars": 40}})
    assert set(obs) == {"item_id", "question", "ocr"}
    assert len(obs["ocr"]) == 40
    assert "spec" not in repr(obs)


def test_unknown_resource_is_a_config_error(docs) -> None:
    item = docs.splits(1, {"probe": 1, "validation": 0, "test": 0})["probe"][0]
    with pytest.raises(ConfigError):
        docs.observation(item, {"cards": {"budget_chars": 10}})


def test_settings_are_registered_with_the_compile_registry() -> None:
    assert {"docs", "shapes", "flags"} <= set(setting_names())
    assert get_setting("docs").name == "docs"
    with pytest.raises(ConfigError):
        get_setting("nope")


def test_ocr_rule_reads_labelled_lines_and_not_distractors() -> None:
    ocr = (
        "Northwind Traders Inc.\nItems Total $90.00\nVAT (10%) $9.00\n"
        "Balance Due $99.00\nCash $100.00"
    )
    assert ocr_rule("How much is due in total?", ocr) == "$99.00"
    assert ocr_rule("What is the amount before tax?", ocr) == "$90.00"
    assert ocr_rule("How much tax was charged on this receipt?", ocr) == "$9.00"
    assert ocr_rule("Which company issued this receipt?", ocr) == "Northwind Traders Inc."
    # reading across lines is left to the student
    assert ocr_rule("Which item has the highest unit price?", ocr) == ""


@needs_tesseract
def test_hooks_only_is_well_below_the_ceiling(docs) -> None:
    items = docs.splits(0, {"probe": 0, "validation": 0, "test": 12})["test"]
    result = hooks_only_score(docs, items)
    assert result.ceiling == 1.0
    assert 0.0 < result.hooks_only < 0.8


def test_a_page_is_drawn_once_per_process_with_the_pixels_of_its_spec() -> None:
    import io

    from PIL import Image

    from tether.systems.compile.settings.docs_render import render

    setting = DocsSetting()
    item = setting.splits(0, {"probe": 1, "validation": 0, "test": 0})["probe"][0]
    first = setting.image(item)
    assert setting.image(item) == first and setting.pages.draws == 1
    drawn = render(item.data["spec"])
    shown = Image.open(io.BytesIO(first))
    assert shown.size == drawn.size and shown.tobytes() == drawn.tobytes()
