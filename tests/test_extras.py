"""tether.extras: the optional extras' modules, found without importing them."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from tether.extras import EXTRAS, install_hint, missing_modules, needs

ROOT = Path(__file__).resolve().parents[1]


def test_the_table_names_every_extra_of_pyproject() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert set(EXTRAS) == set(declared) - {"docs", "dev"}


def test_a_hidden_module_is_missing_and_named_in_the_pip_command(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "krippendorff", None)  # as if not installed
    assert missing_modules("judge") == ["krippendorff"]
    assert needs(("judge",)) == "pip install 'tether[judge]'"
    assert needs(()) is None
    assert install_hint(["judge", "gepa"]) == "pip install 'tether[judge,gepa]'"
    with pytest.raises(KeyError):
        missing_modules("no-such-extra")
