"""default vs reference: where they differ on an artifact, and the rule that explains it."""

from __future__ import annotations

from tests.systems.pages.geometry.conftest import PLANTED
from tether.systems.pages.geometry.profile_diff import WHY, diff_profiles

CASES = {
    # page: {(kind, location): (reference, default, {reason: n})}
    "carousel_clip.html": {("out_of_bounds", "1920x1080"): (1, 0, {"clipped": 1}),
                           ("overflow", "1920x1080"): (2, 0, {"clipped": 2})},
    "hidden_parent.html": {("text_overlap", "1920x1080"): (1, 0, {"invisible": 1})},
    "overlap_cascade.html": {("text_overlap", "1920x1080"): (3, 1, {"grouped": 2})},
    "edges.html": {("out_of_bounds", "1920x1080"): (2, 1, {"clipped": 1}),
                   ("overflow", "1920x1080"): (1, 0, {"page_container": 1}),
                   ("scrollbar", "1920x1080"): (1, 0, {"root_hides": 1})},
    "nowrap_truncated.html": {("overflow", "1920x1080"): (0, 1, {"own_box": 1})},
    "external_image.html": {("external_resource", "network"): (0, 1, {"network": 1})},
    "cards_sections.html": {("misalignment", "1920x1080"): (3, 1, {"cards": 1})},
    "card_off_canvas.html": {("out_of_bounds", "1920x1080"): (0, 1, {"default_only": 1})},
    "placed_labels.html": {("overflow", "1920x1080"): (3, 0, {"placed": 3})},
    "clean.html": {},
}


def test_planted_differences_are_listed_with_their_reasons(browser_host):
    names = sorted(CASES)
    results = diff_profiles([((PLANTED / n).read_text(), "figure", None) for n in names],
                            browser_host)
    for name, diffs in zip(names, results, strict=True):
        assert not isinstance(diffs, str), diffs
        got = {(d.kind, d.location): (d.reference, d.default, dict(d.reasons)) for d in diffs}
        assert got == CASES[name], name
        for d in diffs:
            assert all(r in WHY for r in d.reasons) and d.describe().startswith(d.kind)


def test_a_render_error_is_reported_not_listed_as_no_difference(browser_host):
    (res,) = diff_profiles([("<script>while(true){}</script>", "figure", None)],
                           browser_host, timeout_s=2.0)
    assert isinstance(res, str) and "1920x1080" in res
