"""Probe output to messages and fixes (no browser: the probe's dicts are given)."""

from __future__ import annotations

from tether.systems.pages.geometry.defects import FIXES, defect_from_probe
from tether.systems.pages.geometry.measure import ProbeRun

RUN = ProbeRun(viewport=(1920, 1080), frame_ms=None)
TEXT = {"selector": "div.note", "label": "Revenue grew", "box": {"x": 300, "y": 300,
                                                                 "w": 118, "h": 89}}


def _overflow(**detail):
    return defect_from_probe({"kind": "overflow", "elements": [TEXT],
                              "detail": {"reason": "own_box", **detail}}, RUN)


def test_vertical_overflow_names_the_height_and_a_height_fix():
    d = _overflow(axis="vertical", scroll=[118, 120], scroll_y=[89, 40])
    assert "overflows vertically: 89px of text in a box 40px high" in d.message
    assert d.evidence["suggested_fix"] == FIXES["overflow/own_box/vertical"]
    assert "nowrap" not in d.evidence["suggested_fix"]


def test_horizontal_overflow_keeps_the_width_message_and_the_wrap_fix():
    d = _overflow(axis="horizontal", scroll=[428, 180], scroll_y=[33, 33])
    assert d.message.endswith("is 428px of text in a box 180px wide")
    assert d.evidence["suggested_fix"] == FIXES["overflow/own_box"]


def test_overflow_both_ways_names_both_axes():
    d = _overflow(axis="both", scroll=[300, 120], scroll_y=[89, 40])
    assert "300px of text in a box 120px wide" in d.message
    assert "89px of text in a box 40px high" in d.message
    assert d.evidence["suggested_fix"] == FIXES["overflow/own_box/both"]


def test_a_record_without_an_axis_reads_as_horizontal():
    d = _overflow(scroll=[428, 180])
    assert "428px of text in a box 180px wide" in d.message


def test_a_shifted_card_gets_the_offset_fix():
    card = {"selector": "div.card", "label": "", "box": {"x": 0, "y": 23, "w": 400, "h": 240}}
    d = defect_from_probe({"kind": "misalignment", "elements": [card, card],
                           "detail": {"findings": [{"axis": "row", "reasons": ["offset"]}]}},
                          RUN)
    assert "2 cards are misaligned (row: a card shifted out of line)" in d.message
    assert d.evidence["suggested_fix"] == FIXES["misalignment/offset"]


def test_the_studys_feedback_form_has_no_coordinates_and_its_example_limits():
    from tether.core import Observation
    from tether.systems.pages.geometry.defects import format_geometry_feedback

    other = {"selector": "p", "label": "Costs", "box": {"x": 310, "y": 320, "w": 90, "h": 30}}
    overlaps = [defect_from_probe({"kind": "text_overlap", "elements": [TEXT, other]}, RUN)
                for _ in range(14)]
    overflows = [_overflow(axis="horizontal", scroll=[428, 180]) for _ in range(10)]
    obs = Observation(instrument="geometry", version="2", grounded=True, score=24.0,
                      passed=False, defects=overlaps + overflows)
    ours = format_geometry_feedback(obs)
    assert "(300,300 118x89)" in ours and "Coordinates are CSS px" in ours
    study = format_geometry_feedback(obs, coordinates=False)
    assert "118x89" not in study and "Coordinates" not in study
    lines = study.splitlines()
    assert sum(ln.startswith("- TEXT_OVERLAP") for ln in lines) == 12  # the study's 12
    assert sum(ln.startswith("- OVERFLOW") for ln in lines) == 8  # and 8 of other kinds
    assert "- ... and 2 more text_overlap" in lines and "- ... and 2 more overflow" in lines
    assert all("[1920x1080]" in ln for ln in lines if ln.startswith("- ") and "..." not in ln)
