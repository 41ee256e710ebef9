"""One version: the wheel's (pyproject.toml) is the one tether reports."""

from __future__ import annotations

import tomllib
from pathlib import Path

import tether
from tether.version import __version__

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_the_wheels() -> None:
    stated = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert __version__ == stated == tether.__version__
