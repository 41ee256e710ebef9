"""A whole `tether compile` at a stand-in student endpoint: concurrency 1 against N.

The student is a remote (OpenAI-compatible) model; its endpoint is a local stand-in on
127.0.0.1 (a daemon thread of this process, humaneval_standin.StandIn answering every
request with the same short reply after --latency seconds), so what is measured is how
the compile issues its student calls, not a model's speed. The teacher is the mute
scripted double (`scripted:tether.testing.scripted_teacher:mute`: no harness in any
reply), so the compile keeps bare and every student call is one item of bare's scoring:
probe + validation before the freeze, test after it.

Each side is the whole command, a subprocess timed from its start to its exit:

    tether compile --setting docs --teacher MUTE --student STANDIN;concurrency=C
                   --probe P --validation V --test T --rounds 1 --restarts 0
                   --comparators none --out DIR --json

once with C = 1 and once with C = --concurrency, against the same endpoint. Each side
has its own --timeout (a side past it is killed and reported as such; the other still
prints); the endpoint has its own (a connection that sends nothing for --endpoint-timeout
seconds is dropped and counted).

Printed: each side's wall time, the student calls the endpoint answered, the side's
endpoint floor and wall / floor; then the ratio C=1 / C=N (goal >= 4) beside the ratio
the endpoint allows (floor C=1 / floor C=N). The floor of a side is its waves of calls
times the latency, the freeze kept: ceil((P + V) / C) waves before the selection, then
ceil(T / C) after it (no test item may start before the selection is recorded).

    .venv/bin/python benchmarks/compile_throughput.py [--concurrency 8] [--latency 0.2]
                                                       [--repeats 3]

The machine is shared: print `uptime` beside the numbers you keep (the lines do).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from humaneval_standin import StandIn
from whole_eval import load_text, precompile_tether, timed_process

BIN = Path(sys.executable).parent
MUTE_TEACHER = "scripted:tether.testing.scripted_teacher:mute"
#: the stand-in student's reply to every request (a docs answer no item has)
REPLY = "I cannot read that."


class AnyStandIn(StandIn):
    """The stand-in endpoint answering every request with REPLY."""

    def __init__(self, latency_s: float, timeout_s: float) -> None:
        super().__init__([], latency_s, timeout_s=timeout_s)

    def answer(self, body: dict[str, Any]) -> str | None:
        return REPLY


@dataclass
class Sizes:
    probe: int
    validation: int
    test: int

    @property
    def calls(self) -> int:
        return self.probe + self.validation + self.test


def floor_s(sizes: Sizes, concurrency: int, latency: float) -> float:
    """The endpoint's floor with the freeze kept: the waves of probe + validation calls,
    then the waves of test calls, one latency each."""
    before = math.ceil((sizes.probe + sizes.validation) / concurrency)
    after = math.ceil(sizes.test / concurrency)
    return (before + after) * latency


def compile_argv(url: str, concurrency: int, sizes: Sizes, out: Path) -> list[str]:
    return [str(BIN / "tether"), "compile", "--setting", "docs", "--teacher", MUTE_TEACHER,
            "--student", f"openai-compatible/stand-in@{url};concurrency={concurrency}",
            "--probe", str(sizes.probe), "--validation", str(sizes.validation),
            "--test", str(sizes.test), "--rounds", "1", "--restarts", "0",
            "--comparators", "none", "--out", str(out), "--json"]


def run_side(endpoint: StandIn, concurrency: int, sizes: Sizes, latency: float,
             timeout_s: float, out: Path) -> dict[str, Any]:
    """One whole compile, process start to exit, and what the endpoint saw of it."""
    endpoint.traffic.clear()
    timed = timed_process(compile_argv(endpoint.url, concurrency, sizes, out),
                          timeout_s=timeout_s)
    floor = floor_s(sizes, concurrency, latency)
    side: dict[str, Any] = {"concurrency": concurrency, "wall_s": timed.wall_s,
                            "cpu_s": timed.cpu_s, "floor_s": floor,
                            "calls": len(endpoint.traffic.snapshot()),
                            "timed_out": timed.wall_s is None, "error": None,
                            "bare_test": None, "load": load_text()}
    if timed.wall_s is None:
        return side
    try:
        result = json.loads(timed.done.stdout)
        side["bare_test"] = result["bare"]["test"]
    except (ValueError, KeyError, TypeError):
        side["error"] = f"exit {timed.done.returncode}: {timed.done.stderr[-600:]}"
    if side["error"] is None and side["calls"] != sizes.calls:
        side["error"] = f"the endpoint answered {side['calls']} calls, not {sizes.calls}"
    if floor > 0:
        side["over_floor"] = timed.wall_s / floor
    return side


def side_line(side: dict[str, Any], timeout_s: float) -> str:
    head = f"concurrency {side['concurrency']:>2}:"
    if side["timed_out"]:
        return f"{head} the compile ran past its timeout of {timeout_s:g} s (killed)"
    if side["error"]:
        return f"{head} failed: {side['error']}"
    over = f"{side['over_floor']:.2f}x" if "over_floor" in side else "-"
    return (f"{head} {side['wall_s']:6.2f} s   {side['calls']} student calls   "
            f"floor {side['floor_s']:.2f} s   wall / floor {over}   "
            f"CPU {side['cpu_s']:.2f} s   load {side['load']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--concurrency", type=int, default=8, help="the compared side's limit")
    ap.add_argument("--latency", type=float, default=0.2, help="seconds per request")
    ap.add_argument("--probe", type=int, default=10)
    ap.add_argument("--validation", type=int, default=20)
    ap.add_argument("--test", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=1, help="timed pairs of sides")
    ap.add_argument("--timeout", type=float, default=300.0, help="each compile's limit (s)")
    ap.add_argument("--endpoint-timeout", type=float, default=60.0,
                    help="the endpoint's limit on an idle connection (s)")
    ap.add_argument("--json", dest="json_out", help="also write the numbers to this file")
    args = ap.parse_args(argv)
    sizes = Sizes(args.probe, args.validation, args.test)
    precompile_tether()
    serial_floor = floor_s(sizes, 1, args.latency)
    wide_floor = floor_s(sizes, args.concurrency, args.latency)
    allowed = serial_floor / wide_floor if wide_floor > 0 else None
    print(f"tether compile, docs, bare kept (mute teacher): {sizes.calls} student calls "
          f"(probe {sizes.probe}, validation {sizes.validation}, test {sizes.test}) at "
          f"{args.latency:g} s each; concurrency 1 against {args.concurrency}")
    results: dict[str, Any] = {"sizes": vars(sizes), "latency_s": args.latency,
                               "concurrency": args.concurrency, "floor_ratio": allowed,
                               "runs": []}
    failed = False
    with tempfile.TemporaryDirectory(prefix="compile-throughput-") as tmp, \
            AnyStandIn(args.latency, args.endpoint_timeout) as endpoint:
        for rep in range(args.repeats):
            pair = [run_side(endpoint, c, sizes, args.latency, args.timeout,
                             Path(tmp) / f"c{c}-{rep}") for c in (1, args.concurrency)]
            for side in pair:
                print(side_line(side, args.timeout))
                failed |= side["timed_out"] or side["error"] is not None
            serial, wide = pair
            row: dict[str, Any] = {"serial": serial, "wide": wide, "ratio": None}
            if serial["wall_s"] and wide["wall_s"] and not failed:
                row["ratio"] = serial["wall_s"] / wide["wall_s"]
                allows = "-" if allowed is None else f"{allowed:.2f}x"
                print(f"ratio concurrency 1 / {args.concurrency}: {row['ratio']:.2f}x "
                      f"(goal >= 4; the endpoint allows {allows})")
            results["runs"].append(row)
        results["endpoint_timeouts"] = endpoint.traffic.timed_out
    if results["endpoint_timeouts"]:
        print(f"the endpoint dropped {results['endpoint_timeouts']} connection(s) idle past "
              f"its timeout of {args.endpoint_timeout:g} s")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
