"""The `shapes` setting (easy-vqa images, numpy signals)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("easy_vqa")

from tether.systems.compile.settings.hooks_only import hooks_only_score  # noqa: E402
from tether.systems.compile.settings.shapes import (  # noqa: E402
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
    assert 0.3 < result.hooks_only < 0.6


def test_strokes_lie_behind_the_shape_in_other_colours() -> None:
    from PIL import Image, ImageDraw

    from tether.systems.compile.settings.shapes import PALETTE, add_strokes

    im = Image.new("RGB", (64, 64), (240, 250, 245))
    ImageDraw.Draw(im).rectangle([20, 20, 40, 40], fill=PALETTE["blue"])
    out = add_strokes(im, [[0, 30, 63, 30, 3, k] for k in range(3)])
    pixels = np.asarray(out)
    assert (pixels[20:41, 20:41] == PALETTE["blue"]).all()  # the shape is untouched
    crossing = {tuple(int(v) for v in pixels[30, x]) for x in range(0, 15)}
    assert crossing and PALETTE["blue"] not in crossing  # never the shape's own colour
    assert add_strokes(im, []).tobytes() == im.tobytes()


def test_recipe_with_a_seeing_student_stays_far_above_hooks_only() -> None:
    """The bundled recipe: verdicts where the colour mask is confident, the student
    (here a test double that sees the image, so it answers right) everywhere else."""
    from tether.systems.compile.recipes import recipe
    from tether.systems.compile.runtime import HarnessRuntime, score_outcome

    setting = ShapesSetting()
    items = setting.splits(0, {"probe": 0, "validation": 0, "test": 40})["test"]
    with HarnessRuntime(recipe("shapes"), setting) as runtime:
        outcomes = [runtime.run_item(item, lambda p, im, i=item: setting.gold(i)[0])
                    for item in items]
    scores = [score_outcome(setting, i, o) for i, o in zip(items, outcomes, strict=True)]
    assert sum(scores) / len(scores) >= 0.85
    assert {o.status for o in outcomes} == {"answered", "verdict"}
    assert hooks_only_score(setting, items).hooks_only < 0.6
