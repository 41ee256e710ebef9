"""Cost of a registry look-up: building a trial's strategy and metric instrument.

A `Registry` reads the installed entry points and imports its modules before its first
look-up only (tether.registry); before, it did so before every look-up. This times one
`build_strategy` + `build_instrument` pair both ways in the same process: as the
registries work now, and with each registry made to load again before every look-up
(the old behaviour), and prints the ratio.

Run: `PYTHONPATH=src python benchmarks/registry_lookup.py [REPEATS]`.
"""

from __future__ import annotations

import sys
import time

from tether.instruments import INSTRUMENTS, build_instrument
from tether.strategies import STRATEGIES, build_strategy


def build_pair() -> None:
    build_strategy("single_shot", {"max_tokens": 64})
    build_instrument("execution;checks=visible")


def timed(repeats: int, *, reload_each_time: bool) -> float:
    """Seconds per pair."""
    start = time.perf_counter()
    for _ in range(repeats):
        if reload_each_time:
            for registry in (STRATEGIES, INSTRUMENTS):
                registry._loaded_once = False  # the old behaviour: load before each look-up
        build_pair()
    return (time.perf_counter() - start) / repeats


def main(repeats: int) -> None:
    build_pair()  # the first look-up loads either way
    now = timed(repeats, reload_each_time=False)
    before = timed(repeats, reload_each_time=True)
    print(f"load before every look-up: {before * 1000:8.2f} ms per strategy + instrument")
    print(f"load once (now):           {now * 1000:8.3f} ms per strategy + instrument")
    print(f"ratio: {before / now:,.0f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
