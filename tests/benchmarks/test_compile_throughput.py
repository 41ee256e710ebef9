"""benchmarks/compile_throughput.py's code path, small: two whole compiles of 6 items at
no latency (the benchmark's 50 items at 0.2 s are not part of the tests; nothing here
is timed)."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path
from types import ModuleType

import pytest

from tests.benchmarks.test_whole_eval import _load


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return _load("compile_throughput")


def test_the_floor_keeps_the_freeze(bench) -> None:
    sizes = bench.Sizes(10, 20, 20)
    assert bench.floor_s(sizes, 1, 0.2) == pytest.approx(10.0)
    # 30 calls before the selection in 4 waves, 20 after it in 3
    assert bench.floor_s(sizes, 8, 0.2) == pytest.approx(1.4)


@pytest.mark.skipif(shutil.which("tesseract") is None,
                    reason="the docs compile's teacher examples read OCR: tesseract-ocr "
                           "not installed (scripts/setup.sh)")
def test_the_benchmark_runs_both_sides_of_a_whole_compile(bench, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "numbers.json"
    code = bench.main(["--probe", "2", "--validation", "2", "--test", "2", "--latency", "0",
                       "--concurrency", "2", "--timeout", "300", "--json", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    numbers = json.loads(out.read_text())
    [run] = numbers["runs"]
    for side, width in (("serial", 1), ("wide", 2)):
        got = run[side]
        assert got["concurrency"] == width and got["error"] is None, got
        assert got["calls"] == 6 and not got["timed_out"]
        assert got["wall_s"] > 0 and got["cpu_s"] > 0
        assert got["bare_test"] is not None
    assert run["serial"]["bare_test"] == run["wide"]["bare_test"]  # the same answers
    assert run["ratio"] > 0 and numbers["floor_ratio"] is None  # 0 s latency: no floor
    assert numbers["endpoint_timeouts"] == 0
    assert "ratio concurrency 1 / 2" in printed and "load" in printed


def test_a_compile_past_its_timeout_is_reported_as_such(bench, tmp_path: Path) -> None:
    with bench.AnyStandIn(0.0, 10.0) as endpoint:
        side = bench.run_side(endpoint, 1, bench.Sizes(1, 1, 1), 0.0, 0.01, tmp_path / "o")
    assert side["timed_out"] and side["wall_s"] is None
    assert bench.side_line(side, 0.01) == ("concurrency  1: the compile ran past its "
                                           "timeout of 0.01 s (killed)")


def test_the_endpoint_drops_a_silent_connection_at_its_own_timeout(bench) -> None:
    with bench.AnyStandIn(0.0, 0.2) as endpoint:
        port = int(endpoint.url.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            assert conn.recv(1) == b""  # closed by the endpoint, nothing sent
        # http.server reports the timeout before it closes the connection
        assert endpoint.traffic.timed_out == 1
