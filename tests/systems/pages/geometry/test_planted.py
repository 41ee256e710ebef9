"""Planted-defect pages: exact counts per kind under both profiles."""

from __future__ import annotations

import json

import pytest

from tests.systems.pages.geometry.conftest import PLANTED
from tether.systems.pages.geometry.instrument import GeometryInstrument

pytestmark = pytest.mark.browser

EXPECTED = {k: v for k, v in json.loads((PLANTED / "expected.json").read_text()).items()
            if not k.startswith("_")}
FRAMES = (0, 500, 1000, 1500, 2000)


def _measure(host, profile, names):
    inst = GeometryInstrument(GeometryInstrument.Params(profile=profile), host=host)
    items = [((PLANTED / n).read_text(), EXPECTED[n]["modality"],
              FRAMES if EXPECTED[n]["modality"] == "animation" else None) for n in names]
    return dict(zip(names, inst.measure_many(items), strict=True))


@pytest.mark.parametrize("profile", ["reference", "default"])
def test_planted_pages_give_exact_counts_per_kind(browser_host, profile):
    names = [n for n, e in EXPECTED.items() if profile in e]
    results = _measure(browser_host, profile, names)
    got = {n: (o.error or o.raw["counts"]) for n, o in results.items()}
    want = {n: EXPECTED[n][profile] for n in names}
    assert got == want
    for name, obs in results.items():
        assert obs.score == sum(want[name].values())
        assert obs.passed is (not want[name])


def test_default_animation_counts_land_on_the_expected_frames(browser_host):
    names = [n for n, e in EXPECTED.items() if "default_per_frame" in e]
    results = _measure(browser_host, "default", names)
    for name, obs in results.items():
        per = [obs.raw["per_location"][f"1920x1080 @ {t}ms"] for t in FRAMES]
        assert per == EXPECTED[name]["default_per_frame"], name


def test_every_planted_page_is_covered():
    pages = {p.name for p in PLANTED.glob("*.html")}
    assert pages == set(EXPECTED)


def test_text_too_tall_for_its_box_is_vertical_overflow_with_a_height_fix(browser_host):
    obs = _measure(browser_host, "default", ["tall_text.html"])["tall_text.html"]
    (defect,) = obs.defects
    assert defect.evidence["detail"]["reason"] == "own_box"
    assert defect.evidence["detail"]["axis"] == "vertical"
    assert "overflows vertically" in defect.message and "40px high" in defect.message
    fix = defect.evidence["suggested_fix"]
    assert "height" in fix and "nowrap" not in fix


@pytest.mark.parametrize(("page", "n_cards"), [("shifted_card.html", 3),
                                               ("shifted_pair.html", 2)])
def test_a_card_shifted_out_of_its_row_is_misaligned(browser_host, page, n_cards):
    (defect,) = _measure(browser_host, "default", [page])[page].defects
    assert defect.kind == "misalignment"
    assert len(defect.evidence["elements"]) == n_cards
    findings = defect.evidence["detail"]["findings"]
    assert [f["axis"] for f in findings] == ["row"]
    assert "offset" in findings[0]["reasons"]
    assert "shifted" in defect.message


def test_the_aligned_control_has_no_misalignment(browser_host):
    obs = _measure(browser_host, "default", ["aligned_cards.html"])["aligned_cards.html"]
    assert obs.error is None and obs.defects == []
