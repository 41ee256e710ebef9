"""A whole HumanEval evaluation at a stand-in endpoint: tether's wall time against the
endpoint's floor, and against Inspect AI running the same evaluation.

The endpoint (humaneval_standin.py, a daemon thread on 127.0.0.1) answers each
problem with its canonical solution after --latency seconds, so every program passes
and what is measured is everything but the model: starting, loading the problems,
issuing the calls, running each program against its checks in a sandbox, recording,
reporting. Each side is a real subprocess, timed from its start to its exit:

- tether: `tether run CONFIG --limit N --json` (one single-shot arm, the proposer at the
  stand-in with the endpoint limit and the run's concurrency both --concurrency, the
  bwrap sandbox);
- Inspect AI, when installed (the `inspect` extra): `inspect eval whole_eval_inspect.py
  --limit N --max-connections C --max-samples C --display none`, each program run by
  `python3 -c` in Inspect's local sandbox.

Printed: each side's wall time and passed count, the endpoint floor (ceil(N / C) waves of
--latency), tether's overhead over the floor (wall / floor, goal <= 2) and the ratio
Inspect / tether (goal >= 2); then a profile of one more tether run with timers on its
run path (whole_eval_probe.py): where the time goes from process start to the first
request, between replies (per trial: model call, check: sandbox start and check
execution, store commit, progress) and from the last reply to exit, and the slowest
imports (`-X importtime`). Each side has its own --timeout; one that runs past it is
killed and reported as such, and the other side's numbers still print.

    .venv/bin/python benchmarks/whole_eval.py --limit 40 --latency 0.5 --concurrency 8
    .venv/bin/python benchmarks/whole_eval.py --limit 164 --concurrency 16 --no-profile

The machine is shared: print `uptime` beside the numbers you keep.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cpu_meter import CpuMeter
from humaneval_standin import StandIn, load_problems
from whole_eval_profile import profile_tether

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent


@dataclass
class Side:
    """One timed evaluation: process start to exit, and what it reported."""

    name: str
    wall_s: float | None = None  # None: it ran past its timeout (killed)
    cpu_s: float | None = None  # user + system CPU of the process and all it started
    cpu_exact: bool = True  # False: rusage of reaped children only (see cpu_meter.py)
    passed: int | None = None
    total: int | None = None
    timed_out: bool = False
    returncode: int | None = None
    error: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        if self.timed_out:
            return f"{self.name:<8} ran past its timeout of {self.extra['timeout_s']:g} s (killed)"
        if self.error:
            return f"{self.name:<8} failed: {self.error}"
        return (f"{self.name:<8} {self.wall_s:7.2f} s   passed {self.passed}/{self.total}"
                f"   CPU {self.cpu_s:.2f} s{'' if self.cpu_exact else ' (at least)'}"
                f"   (exit {self.returncode})")


@dataclass
class Timed:
    """A finished process: wall seconds from its start to its exit (None: killed at its
    timeout), CPU seconds it and every process it started used, what it printed."""

    wall_s: float | None
    cpu_s: float
    cpu_exact: bool
    done: subprocess.CompletedProcess


def timed_process(argv: list[str], *, timeout_s: float, env: dict[str, str] | None = None,
                  cwd: Path | None = None) -> Timed:
    """Run argv to its exit or its timeout (then everything it started is killed)."""
    meter = CpuMeter()
    try:
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env, cwd=cwd, start_new_session=True,
                                preexec_fn=meter.join)
        wall: float | None = None
        try:
            out, err = proc.communicate(timeout=timeout_s)
            wall = time.monotonic() - start
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            out, err = proc.communicate()
        return Timed(wall, meter.seconds(), meter.exact,
                     subprocess.CompletedProcess(argv, proc.returncode, out, err))
    finally:
        meter.close()


def tether_config(work: Path, url: str, concurrency: int) -> Path:
    path = work / "whole_eval.toml"
    path.write_text(f"""name = "whole-eval"
suites = ["humaneval"]
seeds = 1
budgets = [4000]

[models]
proposer = "openai-compatible/stand-in@{url};concurrency={concurrency}"

[[strategies]]
name = "single_shot"
params = {{max_tokens = 1024}}

[run]
concurrency = {concurrency}
sandbox = "bwrap"
""")
    return path


def tether_argv(config: Path, out: Path, limit: int) -> list[str]:
    return ["run", str(config), "--out", str(out), "--limit", str(limit), "--json"]


def _run_side(side: Side, argv: list[str], timeout_s: float, **kwargs: Any
              ) -> subprocess.CompletedProcess[str] | None:
    """Run one side's process, recording its exit, CPU and wall time on `side`; its
    completed process, or None when it ran past `timeout_s` (`side.timed_out`)."""
    timed = timed_process(argv, timeout_s=timeout_s, **kwargs)
    done = timed.done
    side.returncode, side.cpu_s, side.cpu_exact = done.returncode, timed.cpu_s, timed.cpu_exact
    if timed.wall_s is None:
        side.timed_out = True
        return None
    side.wall_s = timed.wall_s
    return done


def run_tether(work: Path, url: str, limit: int, concurrency: int, timeout_s: float,
               tag: str) -> Side:
    side = Side("tether", extra={"timeout_s": timeout_s})
    config = tether_config(work, url, concurrency)
    out = work / f"run-{tag}"
    done = _run_side(side, [str(BIN / "tether"), *tether_argv(config, out, limit)], timeout_s)
    if done is None:
        return side
    try:
        summary = json.loads(done.stdout)
        side.total = summary["committed"]
        side.passed = sum(a.get("passed") or 0 for a in summary["arms"])
    except (ValueError, KeyError, TypeError):
        side.error = f"exit {done.returncode}: {(done.stderr or done.stdout)[-600:]}"
    side.extra["run_dir"] = out
    return side


def run_inspect(work: Path, url: str, limit: int, concurrency: int, timeout_s: float,
                tag: str) -> Side:
    side = Side("inspect", extra={"timeout_s": timeout_s})
    log_dir = work / f"inspect-{tag}"
    env = dict(os.environ, STANDIN_BASE_URL=url, STANDIN_API_KEY="not-needed",
               INSPECT_LOG_DIR=str(log_dir))
    # Inspect takes a task file relative to its working directory
    argv = [str(BIN / "inspect"), "eval", "whole_eval_inspect.py",
            "--model", "openai-api/standin/stand-in", "--limit", str(limit),
            "--max-connections", str(concurrency), "--max-samples", str(concurrency),
            "--display", "none", "--log-dir", str(log_dir)]
    done = _run_side(side, argv, timeout_s, env=env, cwd=HERE)
    if done is None:
        return side
    try:
        side.passed, side.total = inspect_counts(log_dir)
    except Exception as exc:  # noqa: BLE001 - reported, the other side still prints
        side.error = f"exit {done.returncode}: no readable log ({exc}): {done.stderr[-600:]}"
    return side


def inspect_counts(log_dir: Path) -> tuple[int, int]:
    from inspect_ai.log import read_eval_log

    [path] = sorted(log_dir.glob("*.eval"))
    log = read_eval_log(str(path))
    samples = log.samples or []
    passed = sum(1 for s in samples if s.scores and
                 next(iter(s.scores.values())).value == "C")
    return passed, len(samples)


def inspect_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("inspect_ai") is not None and (BIN / "inspect").exists()


def precompile_tether() -> None:
    """Bytecode for tether's modules, as `pip install` writes it for an installed package
    (Inspect's, in site-packages, has it): a checkout run with PYTHONDONTWRITEBYTECODE set
    would otherwise compile every tether module at every start."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("tether")
    if spec is not None and spec.origin:
        compileall.compile_dir(Path(spec.origin).parent, quiet=1)


def floor_s(limit: int, concurrency: int, latency: float) -> float:
    """The endpoint's floor: the calls go in ceil(N / C) waves of one latency each."""
    return math.ceil(limit / concurrency) * latency


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=40, help="first N HumanEval problems")
    ap.add_argument("--latency", type=float, default=0.5, help="seconds per request")
    ap.add_argument("--concurrency", type=int, default=8, help="requests and trials in flight")
    ap.add_argument("--timeout", type=float, default=600.0, help="each side's own limit (s)")
    ap.add_argument("--repeats", type=int, default=1, help="timed runs of each side")
    ap.add_argument("--no-inspect", action="store_true", help="time tether only")
    ap.add_argument("--no-profile", action="store_true", help="skip the profiled run")
    ap.add_argument("--json", dest="json_out", help="also write the numbers to this file")
    args = ap.parse_args(argv)
    problems = load_problems(args.limit)
    precompile_tether()
    limit = len(problems)
    floor = floor_s(limit, args.concurrency, args.latency)
    with_inspect = not args.no_inspect and inspect_available()
    results: dict[str, Any] = {"limit": limit, "latency_s": args.latency,
                               "concurrency": args.concurrency, "floor_s": floor, "runs": []}
    print(f"HumanEval, first {limit} problems; stand-in endpoint at {args.latency:g} s per "
          f"request; concurrency {args.concurrency}; floor {floor:.2f} s "
          f"(ceil({limit}/{args.concurrency}) x {args.latency:g} s); load {load_text()}")
    if not with_inspect:
        print("inspect: not compared (" + ("--no-inspect" if args.no_inspect
                                           else "inspect_ai is not installed") + ")")
    failed = False
    with tempfile.TemporaryDirectory(prefix="whole-eval-") as tmp, \
            StandIn(problems, args.latency) as endpoint:
        work = Path(tmp)
        for rep in range(args.repeats):
            sides = [run_tether(work, endpoint.url, limit, args.concurrency, args.timeout,
                                f"t{rep}")]
            if with_inspect:
                sides.append(run_inspect(work, endpoint.url, limit, args.concurrency,
                                         args.timeout, f"i{rep}"))
            failed |= report_sides(sides, floor, limit, results)
        if not args.no_profile:
            config = tether_config(work, endpoint.url, args.concurrency)
            out = work / "run-profile"
            results["profile"] = profile_tether(work, endpoint,
                                                tether_argv(config, out, limit), out)
    if endpoint.traffic.unmatched:
        print(f"warning: {endpoint.traffic.unmatched} request(s) matched no problem")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2, default=str) + "\n")
    return 1 if failed else 0


def report_sides(sides: list[Side], floor: float, limit: int, results: dict[str, Any]) -> bool:
    """Print one repeat's lines; True when a side failed, timed out or missed a pass."""
    row: dict[str, Any] = {}
    failed = False
    for side in sides:
        print(side.line())
        row[side.name] = {"wall_s": side.wall_s, "cpu_s": side.cpu_s,
                          "cpu_exact": side.cpu_exact, "passed": side.passed,
                          "total": side.total,
                          "timed_out": side.timed_out, "error": side.error or None}
        failed |= side.timed_out or bool(side.error) or side.passed != limit
    tether = sides[0]
    if tether.wall_s is not None and floor > 0:
        over = tether.wall_s / floor
        row["tether_over_floor"] = over
        print(f"tether / floor: {over:.2f}x (goal <= 2); overhead over the floor "
              f"{tether.wall_s - floor:.2f} s")
    if len(sides) > 1 and tether.wall_s and sides[1].wall_s and not sides[1].error:
        ratio = sides[1].wall_s / tether.wall_s
        row["inspect_over_tether"] = ratio
        print(f"inspect / tether: {ratio:.2f}x (goal >= 2)")
    row["load"] = load_text()
    results["runs"].append(row)
    return failed


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


if __name__ == "__main__":
    raise SystemExit(main())
