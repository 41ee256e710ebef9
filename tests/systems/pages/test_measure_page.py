"""`tether.measure(page)`: the geometry instrument on one page from Python."""

from __future__ import annotations

from pathlib import Path

import pytest

import tether
from tests.systems.pages.geometry.conftest import PLANTED
from tether.errors import ConfigError


@pytest.mark.browser
def test_a_file_and_its_text_give_the_same_defects() -> None:
    page = PLANTED / "overlap_cascade.html"
    from_file = tether.measure(page)
    from_text = tether.measure(page.read_text())
    assert from_file.passed is False and from_file.raw["counts"] == {"text_overlap": 1}
    assert from_text.raw["counts"] == from_file.raw["counts"]
    assert tether.measure(str(PLANTED / "clean.html")).passed is True


@pytest.mark.browser
def test_a_file_is_measured_with_its_folder_served(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text('<link rel="stylesheet" href="missing.css"><p>hi</p>')
    obs = tether.measure(tmp_path / "page.html")
    assert obs.raw["counts"] == {"missing_resource": 1}


def test_mistakes_are_config_errors_before_a_browser_starts(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such page"):
        tether.measure(tmp_path / "absent.html")
    with pytest.raises(ConfigError, match="animations only"):
        tether.measure("<p>x</p>", modality="figure", frames=[0, 100])
    with pytest.raises(ConfigError, match="unknown modality"):
        tether.measure("<p>x</p>", modality="poster")
