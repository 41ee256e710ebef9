"""Multi-file pages measured from their folders count exactly as their inlined copies.

sites/deck is a reveal.js-like deck (framework css, theme css, a script that builds the
progress bar, slide number and footer); sites/docs a docs page (css with a web font,
an image, a script). Each is measured from its folder and, inlined into one document
by the test's own inliner, as a single document: the defects must be the same, and
differ from the bare page's (whose resources never load).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.systems.pages.geometry.local_site import inline
from tether.systems.pages.geometry import GeometryInstrument

SITES = Path(__file__).parent / "sites"
#: a web font for the docs page, copied in at test time (not kept in the repository)
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf")


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sites")
    shutil.copytree(SITES, root, dirs_exist_ok=True)
    (root / "docs/fonts").mkdir()
    shutil.copy(FONT, root / "docs/fonts/DocMono.ttf")
    return root


def _defects(obs):
    assert obs.ok, obs.error
    return sorted((d.kind, d.location, d.message) for d in obs.defects)


@pytest.mark.parametrize("profile", ["default", "reference"])
@pytest.mark.parametrize("name,modality,served", [
    ("deck", "slide", {"css/deck.css", "css/theme.css", "js/deck.js"}),
    ("docs", "web", {"css/docs.css", "fonts/DocMono.ttf", "img/diagram.png", "js/search.js"}),
])
def test_folder_counts_equal_the_inlined_copy(sites, browser_host, profile, name, modality,
                                              served):
    page = sites / name / "index.html"
    inst = GeometryInstrument(GeometryInstrument.Params(profile=profile), host=browser_host)
    html = page.read_text()
    folder, inlined, bare = inst.measure_many(
        [(html, modality, None), (inline(page), modality, None), (html, modality, None)],
        [page.parent, None, None])
    assert set(folder.raw["served_files"]) == served
    assert folder.raw["blocked_requests"] == [] and folder.raw["missing_resources"] == []
    assert _defects(folder) == _defects(inlined) and folder.raw["counts"]
    assert inlined.raw["blocked_requests"] == []
    # the bare page (what `tether measure` saw before) lost every css/js resource
    assert len(bare.raw["blocked_requests"]) == len(
        [s for s in served if not s.startswith("fonts/")])
    assert _defects(bare) != _defects(folder)


def test_deck_planted_defects_need_its_css_and_js(sites, browser_host):
    page = sites / "deck/index.html"
    obs = GeometryInstrument(host=browser_host).measure(page.read_text(), "slide",
                                                        base_dir=page.parent)
    # theme.css: the nowrap 900px title; deck.js: the footer on the slide number
    assert obs.raw["counts"] == {"out_of_bounds": 1, "overflow": 1, "text_overlap": 1}
    overlap = next(d for d in obs.defects if d.kind == "text_overlap")
    assert {e["label"] for e in overlap.evidence["elements"]} == {"1 / 2",
                                                                  "Company confidential"}
