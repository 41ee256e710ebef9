"""Per-call latency: a warm SandboxedWorker vs. a fresh sandbox start per call.

The same trivial call (`add(1, 2)` from a one-function program), three ways, in one run:

  worker  SandboxedWorker.call on a warm bwrap worker (state="fresh": the program's
          source is re-executed for every call, as by default)
  run     BwrapSandbox.run(["python3", "-c", program + call]) per call, in-process
  cli     `tether sandbox exec -- python3 -c ...` per call (CLI start included)

Printed: the median of each and the ratios run/worker and cli/worker. About 10-30 s,
mostly the CLI's own import.

    .venv/bin/python benchmarks/sandbox_worker.py [--calls 300] [--runs 20] [--cli-runs 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from tether.sandbox import BwrapSandbox, SandboxedWorker  # noqa: E402

PROGRAM = "def add(a, b):\n    return a + b\n"
SCRIPT = PROGRAM + "print(add(1, 2))\n"


def _median_s(fn: Callable[[], None], runs: int, *, warm: bool = True) -> float:
    if warm:
        fn()  # page cache, cgroup hierarchy, the worker's first start
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=300, help="warm-worker calls")
    parser.add_argument("--runs", type=int, default=20, help="sandbox.run starts")
    parser.add_argument("--cli-runs", type=int, default=2, help="`tether sandbox exec` starts")
    args = parser.parse_args()
    box = BwrapSandbox()

    with SandboxedWorker(box, PROGRAM) as worker:

        def warm_call() -> None:
            reply = worker.call("add", 1, 2)
            assert reply.value == 3, reply

        t_worker = _median_s(warm_call, args.calls)
        assert worker.restarts == 0

    def fresh_run() -> None:
        result = box.run(["python3", "-c", SCRIPT], timeout_s=30)
        assert result.stdout == "3\n", result

    env = {**os.environ, "PYTHONPATH": str(SRC)}
    cli = [sys.executable, "-c", "from tether.cli import main; main()", "sandbox", "exec"]

    def fresh_cli() -> None:
        proc = subprocess.run(
            [*cli, "--json", "--", "python3", "-c", SCRIPT], capture_output=True, env=env
        )
        assert proc.returncode == 0 and b'"stdout": "3\\n"' in proc.stdout, proc

    t_run = _median_s(fresh_run, args.runs)
    t_cli = _median_s(fresh_cli, args.cli_runs, warm=False)  # each start is seconds
    print(f"warm worker call        median {t_worker * 1000:9.3f} ms  ({args.calls} calls)")
    print(f"sandbox.run per call    median {t_run * 1000:9.3f} ms  ({args.runs} runs)")
    print(f"tether sandbox exec     median {t_cli * 1000:9.3f} ms  ({args.cli_runs} runs)")
    print(f"ratio run/worker {t_run / t_worker:.1f}x   cli/worker {t_cli / t_worker:.1f}x")


if __name__ == "__main__":
    main()
