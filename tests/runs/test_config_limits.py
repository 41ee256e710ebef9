"""What a config or `--set` can ask for that would overflow the stack, take minutes or
run nothing: each is one `error:` line, exit 2, before any trial."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main

from .conftest import write_config, write_suite


@pytest.fixture
def cfg(tmp_path: Path) -> Path:
    write_suite(tmp_path / "suite.json")
    return write_config(tmp_path, seeds="[0]")


def one_line(res, *needles: str) -> None:
    assert res.exit_code == 2, res.output[-2000:]
    assert "Traceback" not in res.output
    errors = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and len(errors[0]) < 400, res.output[-2000:]
    for n in needles:
        assert n in errors[0], errors[0]


@pytest.mark.parametrize("sets, says", [
    (["seeds=" + "[" * 100_000], "seeds: Input should be a valid list"),
    (["seeds=[]"], "no seeds: a run of no trials"),
    (["seeds=100000000"], "a seed count must be from 1 to 10,000"),
    (["." .join(["a"] * 3000) + "=1"], "3,000 parts; a key has at most 16"),
    (["strategies.params.n=" + str(list(range(1000))),
      "strategies.params.temperature=" + str([i / 1000 for i in range(1000)])],
     "the parameter grids make 1,000,000 arms; at most 1,000"),
], ids=["deep-json", "no-seeds", "seed-count", "long-key", "million-arms"])
def test_a_run_config_that_asks_too_much_is_one_line(cfg, tmp_path, sets, says):
    args = ["run", str(cfg), "--out", str(tmp_path / "run")]
    for s in sets:
        args += ["--set", s]
    res = CliRunner().invoke(main, args)
    one_line(res, says)
    assert not (tmp_path / "run" / "run.sqlite").exists()


def test_a_config_file_with_no_seeds_is_refused(tmp_path):
    write_suite(tmp_path / "suite.json")
    cfg = write_config(tmp_path, seeds="[]")
    one_line(CliRunner().invoke(main, ["run", str(cfg), "--out", str(tmp_path / "run")]),
             "no seeds")
