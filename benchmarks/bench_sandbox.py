"""Start-up overhead of the bwrap sandbox: `python3 -c pass` sandboxed vs. bare.

Run: .venv/bin/python benchmarks/bench_sandbox.py [--runs 30]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tether.sandbox import BwrapSandbox  # noqa: E402

# The same interpreter on both sides: the sandbox sees /usr, so /usr/bin/python3
# (bare `python3` on PATH may be a slow pyenv shim).
ARGV = ["/usr/bin/python3", "-c", "pass"]


def _median_s(fn, runs: int) -> float:
    fn()  # warm caches (page cache, cgroup hierarchy, user lookup)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    box = BwrapSandbox()

    def sandboxed() -> None:
        result = box.run(ARGV, timeout_s=30)
        assert result.returncode == 0, result

    def bare() -> None:
        subprocess.run(ARGV, check=True)

    t_bare = _median_s(bare, args.runs)
    t_box = _median_s(sandboxed, args.runs)
    print(f"bare subprocess.run  median {t_bare * 1000:8.2f} ms  ({args.runs} runs)")
    print(f"bwrap sandbox.run    median {t_box * 1000:8.2f} ms  ({args.runs} runs)")
    print(f"ratio {t_box / t_bare:.2f}x   overhead {(t_box - t_bare) * 1000:.2f} ms per run")


if __name__ == "__main__":
    main()
