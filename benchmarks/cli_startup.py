"""Wall time of `tether --help` and of every command group's `--help` (fresh processes).

Target: under 0.5 s each. A command's module loads only when it is named (the group lists
commands from tether.cli.hub.LAZY_COMMANDS), and it imports the packages it runs (models,
runner, instruments, report; pydantic, numpy, matplotlib) only when it runs.
Run: `PYTHONPATH=src python benchmarks/cli_startup.py [REPEATS]`.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

RUN = "from tether.cli import main; main({args!r})"


def timed(args: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", RUN.format(args=args)], capture_output=True,
                       check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    import click

    from tether.cli import main as cli

    names = cli.list_commands(click.Context(cli))
    rows = [["--help"]] + [[name, "--help"] for name in names]
    worst = 0.0
    for args in rows:
        t = timed(args, repeats)
        worst = max(worst, t)
        print(f"{' '.join(args):<28} {t:.3f} s")
    print(f"slowest: {worst:.3f} s (target 0.5 s; median of {repeats})")


if __name__ == "__main__":
    main()
