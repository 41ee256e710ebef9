"""Throughput of the execution instrument vs running the same programs bare.

Programs: the recorded programs of the interaction-scaling study (code_4strategy_seeds
on code_tasks.json), a deterministic sample of --n of them. Two sides, interleaved per
program so drift in machine load hits both:

  bare     `python3 script.py` in a plain subprocess, script = program + "\\n" + checks
           (the study's whole-script rule, no sandbox, no per-check work)
  sandbox  the execution instrument (per-check mode, bwrap by default): one sandboxed
           runner that executes the program, every check on its own, and - when all
           checks pass - the whole script

Printed: trials/s (programs/s) and checks/s for both, and the ratio sandbox/bare of
the total wall time. Goal: ratio <= 2.

    .venv/bin/python benchmarks/execution.py [--n 120] [--sandbox bwrap] [--reference DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tether.core.artifact import Artifact
from tether.core.task import Task
from tether.instruments.base import InstrumentEnv, build_instrument
from tether.studies.interaction_scaling.recorded_programs import load_records, load_task_checks

DEFAULT_REF = Path(__file__).resolve().parents[2] / "shared/reference/interaction-scaling"


def bare_run(program: str, checks: str, tmp: Path, flags: list[str]) -> float:
    path = tmp / "script.py"
    path.write_text(program + "\n" + checks)
    start = time.perf_counter()
    subprocess.run(["python3", *flags, str(path)], cwd=tmp, stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=30)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=120, help="programs sampled (0 = all 1,080)")
    ap.add_argument("--sandbox", default="bwrap")
    ap.add_argument("--reference", type=Path, default=DEFAULT_REF)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bare-flags", default="",
                    help="extra python3 flags for the bare side, e.g. -S: a host whose "
                         "site-packages hold .pth files pays for them on every bare start, "
                         "while the sandbox does not see them")
    args = ap.parse_args()
    bare_flags = args.bare_flags.split()
    base = args.reference
    records = load_records(base / "recorded/code/code_4strategy_seeds.json")
    checks = load_task_checks(base / "tasks/code/code_tasks.json")
    if args.n:
        records = random.Random(args.seed).sample(records, min(args.n, len(records)))
    instrument = build_instrument("execution")
    env = InstrumentEnv(sandbox=args.sandbox)
    bare_s = sandbox_s = 0.0
    n_checks = agree = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, rec in enumerate(records):
            task = Task(id=rec.task_id, suite="bench", prompt="", metric="execution",
                        data={"checks": checks[rec.task_id]})
            art = Artifact(kind="program", text=rec.code)
            first_bare = i % 2 == 0
            if first_bare:
                bare_s += bare_run(rec.code, checks[rec.task_id], Path(tmp), bare_flags)
            start = time.perf_counter()
            obs = instrument.observe(art, task, env)
            sandbox_s += time.perf_counter() - start
            if not first_bare:
                bare_s += bare_run(rec.code, checks[rec.task_id], Path(tmp), bare_flags)
            n_checks += obs.raw.get("n_checks", 0)
            agree += obs.passed == rec.passed
    n = len(records)
    print(f"programs: {n} recorded programs, {n_checks} checks, sandbox={args.sandbox}, "
          f"bare = python3 {args.bare_flags} script.py")
    print(f"bare whole-script   : {bare_s:7.2f} s  {n / bare_s:7.1f} trials/s  "
          f"{n_checks / bare_s:8.1f} checks/s")
    print(f"sandboxed per-check : {sandbox_s:7.2f} s  {n / sandbox_s:7.1f} trials/s  "
          f"{n_checks / sandbox_s:8.1f} checks/s")
    ratio = sandbox_s / bare_s
    print(f"ratio sandboxed/bare: {ratio:.2f}x (goal <= 2x)")
    # CPU time is no fairer a measure here: the sandbox chain (setpriv, timeout, bwrap's
    # pid namespace) does not hand its descendants' rusage back to us.
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
          "(wall times compare only with each other: the sides are interleaved)")
    print(f"instrument 'passed' agrees with the recorded verdict on {agree}/{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
