"""The default profile on pages written like ordinary third-party pages (third_party/):
outlines drawn where the probe measured, covered content as occlusion, grid spans not
misaligned, entrance animations counted only when asked, no false alarm on clean pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from tether.systems.pages.geometry.instrument import GeometryInstrument
from tether.systems.pages.geometry.overlay import COLORS, pick_location, render_overlay

pytestmark = pytest.mark.browser

PAGES = Path(__file__).parent / "third_party"


def _measure(host, name: str, modality: str, **options):
    inst = GeometryInstrument(GeometryInstrument.Params(**options), host=host)
    return inst, inst.measure((PAGES / name).read_text(), modality, base_dir=PAGES)


def _near(pixel: tuple[int, ...], color: str) -> bool:
    want = tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))
    return all(abs(a - b) <= 40 for a, b in zip(pixel[:3], want, strict=True))


@pytest.mark.parametrize("modality", ["figure", "web"])
def test_outlines_land_on_the_measured_boxes_of_a_shifted_body(browser_host, tmp_path,
                                                               modality):
    """The page's body is `position: relative; top: 90px` and centred: an overlay layer
    inside it would carry that shift. Every outline is read back from the PNG itself (the
    full-page screenshot of a web page included): the outline's colour sits just outside
    each measured box's left edge, and the box's inside is not that colour's solid."""
    inst, obs = _measure(browser_host, "shifted_body.html", modality)
    assert obs.error is None and obs.defects
    vp, frame = pick_location(obs, modality)
    out = tmp_path / f"{modality}.png"
    run = browser_host.run(render_overlay(browser_host, (PAGES / "shifted_body.html").read_text(),
                                          modality, inst.profile, vp, frame, out, PAGES))
    image = Image.open(out).convert("RGB")
    checked = 0
    for defect in run.defects:
        color = COLORS[defect["kind"]]
        for element in defect["elements"]:
            box = element["box"]
            x, y = round(box["x"]) - 2, round(box["y"] + box["h"] / 2)
            if x < 0:  # an outline at the canvas edge is drawn off the picture
                continue
            assert _near(image.getpixel((x, y)), color), (defect["kind"], box, x, y)
            checked += 1
    assert checked >= 1


def test_a_card_laid_over_another_is_an_occlusion_not_a_misalignment(browser_host):
    _, obs = _measure(browser_host, "covered_card.html", "figure")
    assert obs.raw["counts"] == {"occlusion": 1}
    (defect,) = obs.defects
    hidden, cover = defect.evidence["elements"]
    assert hidden["label"].startswith("Pro") and cover["label"].startswith("Spring sale")
    assert defect.evidence["detail"]["share"] == 1.0
    assert "is hidden under" in defect.message
    fix = defect.evidence["suggested_fix"]
    assert "place of its own" in fix and "shifted" not in fix


@pytest.mark.parametrize("name", ["clean_landing.html", "plain_grid.html", "grid_span.html",
                                  "fixed_bar.html"])
@pytest.mark.parametrize("modality", ["figure", "web"])
def test_no_false_alarm_on_clean_pages_and_spanning_grids(browser_host, name, modality):
    """fixed_bar.html: a product page whose fixed "Add to cart" bar has the specs scroll
    under it (on the phone's first screen it sits over one): neither an occlusion nor a
    text overlap on a web page, where the reader scrolls them out from under it."""
    _, obs = _measure(browser_host, name, modality)
    assert obs.error is None
    assert obs.defects == [], [d.message for d in obs.defects]


def test_entrance_animations_count_only_when_asked(browser_host):
    """The hero slides in from 1500 px to the left: settled it is clean; at t = 0 it is
    off the canvas, which `entrance_animations=count` reports at that frame only."""
    _, settled = _measure(browser_host, "entrance.html", "figure")
    assert settled.defects == []
    _, first = _measure(browser_host, "entrance.html", "figure", entrance_animations="count")
    assert [(d.kind, d.location) for d in first.defects] == [("out_of_bounds",
                                                              "1920x1080 @ 0ms")]


def test_a_page_that_never_settles_times_out_at_the_limit_given(browser_host):
    inst = GeometryInstrument(GeometryInstrument.Params(timeout_s=1.0), host=browser_host)
    obs = inst.measure("<p>spinning</p><script>while (true) {}</script>", "figure")
    assert obs.error is not None and "timed out" in obs.error
