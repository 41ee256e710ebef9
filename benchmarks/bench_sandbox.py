"""Start-up overhead of the bwrap sandbox: `python3 -c pass` sandboxed vs. bare,
and what the per-run disk quota mount (mkfs + mount + umount, as root) adds.

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

from tether.sandbox import DEFAULT_DISK_MB, BwrapSandbox  # noqa: E402

# The same interpreter on both sides: the sandbox sees /usr, so /usr/bin/python3
# (bare `python3` on PATH may be a slow pyenv shim).
ARGV = ["/usr/bin/python3", "-c", "pass"]


def _medians_s(fns, runs: int) -> list[float]:
    """Median time of each fn, calls interleaved so load drifts hit all of them alike."""
    for fn in fns:
        fn()  # warm caches (page cache, cgroup hierarchy, user lookup, quota template)
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for fn, out in zip(fns, times, strict=True):
            start = time.perf_counter()
            fn()
            out.append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--disk-mb", type=int, default=DEFAULT_DISK_MB)
    args = parser.parse_args()
    box = BwrapSandbox()

    def sandboxed() -> None:
        result = box.run(ARGV, timeout_s=30, disk_mb=None)
        assert result.returncode == 0, result

    def sandboxed_quota() -> None:
        result = box.run(ARGV, timeout_s=30, disk_mb=args.disk_mb)
        assert result.returncode == 0, result

    def bare() -> None:
        subprocess.run(ARGV, check=True)

    t_bare, t_box, t_quota = _medians_s([bare, sandboxed, sandboxed_quota], args.runs)
    print(f"bare subprocess.run  median {t_bare * 1000:8.2f} ms  ({args.runs} runs)")
    print(f"bwrap sandbox.run    median {t_box * 1000:8.2f} ms  ({args.runs} runs, no quota)")
    print(f"  + {args.disk_mb} MB quota   median {t_quota * 1000:8.2f} ms  ({args.runs} runs)")
    print(f"ratio {t_box / t_bare:.2f}x   overhead {(t_box - t_bare) * 1000:.2f} ms per run")
    print(f"quota mount adds {(t_quota - t_box) * 1000:.2f} ms per run")


if __name__ == "__main__":
    main()
