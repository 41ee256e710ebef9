"""The `shapes` setting (easy-vqa images, numpy signals)."""

from __future__ import annotations

import pytest

pytest.importorskip("easy_vqa")

from tether.compile.settings.hooks_only import hooks_only_score  # noqa: E402
from tether.compile.settings.shapes import (  # noqa: E402
    ShapesSetting,
    measure,
    signal_rule,
)

from .conftest import assert_common_contract  # noqa: E402


def test_common_contract_with_signals() -> None:
    assert_common_contract(ShapesSetting(), resources={"signals": True})


def test_splits_never_share_an_image() -> None:
    splits = ShapesSetting().splits(5, {"probe": 10, "validation": 10, "test": 20})
    images = [{(i.data["part"], i.data["image"]) for i in items} for items in splits.values()]
    assert sum(map(len, images)) == 40
    assert not (images[0] & images[1] or images[0] & images[2] or images[1] & images[2])


def test_signals_measure_colour_and_shape_of_a_clean_square() -> None:
    from PIL import Image, ImageDraw

    im = Image.new("RGB", (64, 64), (240, 250, 245))
    ImageDraw.Draw(im).rectangle([10, 10, 40, 30], fill=(0, 0, 255))
    signals = measure(im)
    assert max(signals["colour_fractions"], key=signals["colour_fractions"].get) == "blue"
    assert signals["fill_ratio"] > 0.95
    assert signal_rule("what shape is in the image?", signals) == "rectangle"
    assert signal_rule("is there a blue shape?", signals) == "yes"
    assert signal_rule("is there not a blue shape?", signals) == "no"
    assert signal_rule("is there a red shape?", signals) == "no"


def test_public_vocabulary_is_easy_vqa_answers() -> None:
    vocab = ShapesSetting().public_vocabulary()
    assert {"yes", "no", "circle", "teal"} <= set(vocab) and len(vocab) == 13


def test_hooks_only_is_well_below_the_ceiling() -> None:
    setting = ShapesSetting()
    items = setting.splits(0, {"probe": 0, "validation": 0, "test": 60})["test"]
    result = hooks_only_score(setting, items)
    assert result.ceiling == 1.0
    assert 0.4 < result.hooks_only < 0.85
