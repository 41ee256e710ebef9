"""The profile of benchmarks/whole_eval.py: where one tether run's time goes.

One more `tether run` of the same evaluation, through whole_eval_probe.py (timers on the
run path) and `-X importtime`, which makes the imports slower than in the timed runs:
the profile says where time goes, the timed runs say how much there is. Read together
with the stand-in endpoint's traffic and the run's own records:

- the serial start: process start -> interpreter -> command line imported -> the run
  prepared (suite loading inside it) -> the first request at the endpoint;
- between the first request and the last reply (the part the endpoint's floor bounds):
  per trial, its wall time split into the model call and the check (the runner's
  phases inside the sandbox, and the rest: staging files, the sandbox's own work),
  then the driver's store commit and progress line; the sandboxes started (warm ones
  once each, one-shot ones per command) and how long each start took;
- the serial end: last reply -> last commit -> exit (summary, table, store closed);
- the slowest imports, summed per top-level package.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from humaneval_standin import StandIn

HERE = Path(__file__).resolve().parent


def profile_tether(work: Path, endpoint: StandIn, tether_args: list[str], out: Path) -> dict:
    """Run `tether *tether_args` (which writes its run to `out`) under the probe."""
    endpoint.traffic.clear()
    probe = work / "probe.json"
    argv = [sys.executable, "-X", "importtime", str(HERE / "whole_eval_probe.py"), str(probe),
            *tether_args]
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True)
    end = time.monotonic()
    if not probe.is_file():
        print(f"profile: the probed run wrote no timings (exit {done.returncode}): "
              f"{done.stderr[-600:]}")
        return {}
    data = json.loads(probe.read_text())
    profile = summarise(start, end, data, endpoint.traffic.snapshot(), store_records(out),
                        import_times(done.stderr))
    print_profile(profile)
    return profile


def store_records(run_dir: Path) -> list[dict[str, Any]]:
    """The committed trial records of a run directory, read without tether."""
    uri = f"{(run_dir / 'run.sqlite').resolve().as_uri()}?mode=ro"
    with sqlite3.connect(uri, uri=True) as db:
        return [json.loads(r[0]) for r in db.execute("SELECT record FROM trials")]


def import_times(stderr: str) -> dict[str, float]:
    """Seconds per top-level package, from `-X importtime` (outermost imports only)."""
    totals: dict[str, float] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split("|", 2)
        if name.startswith("  ") or not name.strip():  # nested: counted in its importer
            continue
        root = name.strip().split(".")[0]
        totals[root] = totals.get(root, 0.0) + int(cumulative) / 1e6
    return totals


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _durations(spans: dict[str, list[list[float]]], name: str) -> list[float]:
    return [b - a for a, b in spans.get(name, [])]


def summarise(start: float, end: float, data: dict[str, Any],
              traffic: list[tuple[float, float]], records: list[dict[str, Any]],
              imports: dict[str, float]) -> dict[str, Any]:
    marks, spans = data["marks"], data["spans"]
    prepare = spans.get("prepare", [[None, None]])[0]
    commits = spans.get("store commit", [])
    first_request = traffic[0][0] if traffic else None
    last_reply = max((r for _, r in traffic), default=None)
    last_commit = max((b for _, b in commits), default=None)

    def gap(a: float | None, b: float | None) -> float | None:
        return None if a is None or b is None else b - a

    phases, in_sandbox = [], []
    for rec in records:
        raw = (rec.get("metric") or {}).get("raw") or {}
        phase = (raw.get("phase") or {}).get("duration_s") or 0.0
        phases.append(phase + ((raw.get("whole_script") or {}).get("duration_s") or 0.0))
        if raw.get("sandbox_duration_s") is not None:
            in_sandbox.append(raw["sandbox_duration_s"])
    checks = _durations(spans, "check")
    return {
        "wall_s": end - start,
        "start": {
            "interpreter": gap(start, marks.get("probe_start")),
            "command line imported": gap(marks.get("probe_start"), marks.get("cli_imported")),
            "to prepare": gap(marks.get("cli_imported"), prepare[0]),
            "prepare": gap(prepare[0], prepare[1]),
            "of which suite loading": sum(_durations(spans, "suite loading")),
            "prepared -> first request": gap(prepare[1], first_request),
            "process start -> first request": gap(start, first_request),
        },
        "middle": {"first request -> last reply": gap(first_request, last_reply),
                   "requests": len(traffic)},
        "end": {"last reply -> last commit": gap(last_reply, last_commit),
                "last commit -> exit": gap(last_commit, end),
                "of which after tether's atexit": gap(marks.get("atexit"), end)},
        "per_trial": {
            "trials": len(records),
            "trial wall": _mean(_durations(spans, "trial")),
            "model call": _mean(_durations(spans, "model call")),
            "check": _mean(checks),
            "of which runner phases": _mean(phases),
            "of which sandbox process": _mean(in_sandbox),
            "store commit": _mean(_durations(spans, "store commit")),
            "progress": _mean(_durations(spans, "progress")),
        },
        "sandbox starts": {
            "warm sandboxes started": len(spans.get("sandbox start", [])),
            "mean start": _mean(_durations(spans, "sandbox start")),
            "one-shot sandboxes (start and run)": len(
                spans.get("sandbox start and run (one-shot)", [])),
            "mean one-shot": _mean(_durations(spans, "sandbox start and run (one-shot)")),
        },
        "imports": dict(sorted(imports.items(), key=lambda kv: -kv[1])),
        "cpu": data.get("cpu", {}),
    }


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f} s"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{1000 * value:.1f} ms"


def print_profile(p: dict[str, Any]) -> None:
    print(f"profile of one more tether run (timers and -X importtime on; "
          f"{_s(p['wall_s'])} from process start to exit):")
    for key, value in p["start"].items():
        print(f"  start  {key:<34} {_s(value)}")
    middle = p["middle"]
    span = middle["first request -> last reply"]
    print(f"  middle {'first request -> last reply':<34} {_s(span)} "
          f"({middle['requests']} requests)")
    for key, value in p["end"].items():
        print(f"  end    {key:<34} {_s(value)}")
    t = p["per_trial"]
    print(f"  per trial (mean of {t['trials']}): " + ", ".join(
        f"{k} {_ms(v)}" for k, v in t.items() if k != "trials"))
    starts = p["sandbox starts"]
    print(f"  sandboxes: {starts['warm sandboxes started']} warm started "
          f"(mean {_ms(starts['mean start'])}), "
          f"{starts['one-shot sandboxes (start and run)']} one-shot "
          f"(mean start and run {_ms(starts['mean one-shot'])})")
    if p["cpu"]:
        print("  CPU " + ", ".join(f"{k} {v:.2f} s" for k, v in p["cpu"].items()))
    imports = p["imports"]
    top = ", ".join(f"{k} {v:.2f}" for k, v in list(imports.items())[:8])
    print(f"  imports {sum(imports.values()):.2f} s in all; slowest (s): {top}")
