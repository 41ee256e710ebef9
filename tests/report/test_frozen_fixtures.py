"""Old run and build directories report the numbers they reported when they were made.

The fixtures (tests/fixtures/README.md says how each was made) were written by an
earlier tether and are never regenerated: a refactor that changes a number here changed
what users' existing results report.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tether.cli.hub import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _report(directory: Path, tmp_path: Path) -> dict[str, Any]:
    copy = tmp_path / directory.name
    shutil.copytree(directory, copy)  # a report never writes, but the store opens WAL files
    out = tmp_path / "out" / "report.html"
    out.parent.mkdir()
    result = CliRunner().invoke(main, ["report", str(copy), "--json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    numbers = json.loads(result.output)
    del numbers["report"]
    # where the copy was made
    numbers.pop("dir", None)
    numbers.get("run", {}).pop("run_dir", None)
    return numbers


@pytest.mark.parametrize("name", ["report_run", "compile_build"])
def test_a_frozen_directory_reports_the_same_numbers(name: str, tmp_path: Path) -> None:
    expected = json.loads((FIXTURES / f"{name}.numbers.json").read_text())
    assert _kept(expected, _report(FIXTURES / name, tmp_path))


def _kept(old: Any, new: Any, where: str = "") -> bool:
    """Every number the old report gave is given again, unchanged; keys a later tether
    adds (a new section, a cost column) are allowed."""
    if isinstance(old, dict):
        assert isinstance(new, dict), where
        for key, value in old.items():
            assert key in new, f"{where}.{key} is gone"
            _kept(value, new[key], f"{where}.{key}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(new) == len(old), where
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            _kept(a, b, f"{where}[{i}]")
    else:
        assert new == old, f"{where}: {old!r} -> {new!r}"
    return True
