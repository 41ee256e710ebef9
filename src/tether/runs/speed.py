"""A model's speed on this machine, measured, for the duration `tether run --plan` gives.

Speed is output tokens per second of call time: a call's latency holds its prompt
processing, its generation and, for a remote model, the round trip, so a speed measured
over calls prices all three (the embedded model's pure generation rate, about 65 tokens/s
on 2 idle cores, left prompt processing and the machine's load out and was the plan's
constant until it said "at most 3m 33s" for a run that took 822 s). Where it comes from,
first found wins:

- given: `--tokens-per-s N`, the user's own number, for every model;
- measured now: `--measure-speed` times one call of each model (MEASURE_PROMPT, a prompt
  of a few hundred tokens, up to MEASURE_TOKENS out), on this machine as loaded now; it
  costs that call (a remote model's is billed);
- recorded: the calls of that model (not cache hits) in the newest run directories under
  `runs/` (where `tether run` writes by default), up to RECORDED_CALLS of them;
- none of these: unknown, and so is the duration: no speed is assumed.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tether.models import GenerateParams, Model, parse_model
from tether.runs.store import DB_NAME, readonly_uri

#: the calls read from recorded runs, newest run first
RECORDED_CALLS = 400
#: run directories looked into, newest first
RECORDED_RUNS = 20
MEASURE_TOKENS = 64
#: a request of the size the shipped experiments send (a task, a program, some checks)
MEASURE_PROMPT = (
    "You are given a Python function to complete. Read the description, then write the "
    "whole function in one fenced code block, with no explanation.\n\n"
    + "\n".join(f"def step_{i}(values: list[int]) -> list[int]:\n"
                f"    \"\"\"Return the values of the list that are divisible by {i + 2}, "
                f"in the order they appear, each multiplied by {i + 3}.\"\"\"\n"
                for i in range(8)))


@dataclass(frozen=True)
class Speed:
    """Output tokens per second of call time, and where that number comes from."""

    tokens_per_s: float
    source: str


def model_id_of(spec: str) -> str:
    """The model id a spec's calls are recorded under: the spec without its options."""
    return spec if spec.startswith("scripted:") else spec.split(";", 1)[0].strip()


def _rate(rows: list[tuple[int, int, float]]) -> float | None:
    tokens = sum(out + reasoning for out, reasoning, _ in rows)
    seconds = sum(latency for _, _, latency in rows)
    return tokens / seconds if tokens > 0 and seconds > 0 else None


def recorded_speed(spec: str, runs_dir: Path = Path("runs")) -> Speed | None:
    """The speed of `spec`'s model over its recorded calls in runs_dir (see the module
    docstring); None when no run there holds one. A store that cannot be read is passed
    over (a plan never fails on someone else's damaged run)."""
    if not runs_dir.is_dir():
        return None
    stores = sorted((p for p in runs_dir.glob(f"*/{DB_NAME}") if p.is_file()),
                    key=lambda p: p.stat().st_mtime, reverse=True)[:RECORDED_RUNS]
    model_id = model_id_of(spec)
    rows: list[tuple[int, int, float]] = []
    used: list[str] = []
    for path in stores:
        try:
            db = sqlite3.connect(readonly_uri(path), uri=True)
            try:
                found = db.execute(
                    "SELECT output_tokens, reasoning_tokens, latency_s FROM calls WHERE "
                    "model_id = ? AND NOT cache_hit AND latency_s > 0 ORDER BY rowid DESC "
                    "LIMIT ?", (model_id, RECORDED_CALLS - len(rows))).fetchall()
            finally:
                db.close()
        except sqlite3.Error:
            continue
        if found:
            rows += [(int(o or 0), int(r or 0), float(t)) for o, r, t in found]
            used.append(path.parent.name)
        if len(rows) >= RECORDED_CALLS:
            break
    rate = _rate(rows)
    if rate is None:
        return None
    where = (f": {runs_dir / used[0]}" if len(used) == 1
             else f" in {len(used)} runs under {runs_dir}/, newest {used[0]}")
    return Speed(rate, f"over {len(rows)} recorded calls{where}")


def measured_speed(spec: str, build: Callable[[str], Model] = parse_model) -> Speed | None:
    """Time one call of `spec`'s model now; None when it returned no token. An in-process
    model is loaded by a first one-token call before the clock starts (a run pays the load
    once). A model that cannot be reached raises its ModelError."""
    model = build(spec)
    model.generate([{"role": "user", "content": "Say OK."}], GenerateParams.of(max_tokens=1))
    start = time.perf_counter()
    [completion] = model.generate([{"role": "user", "content": MEASURE_PROMPT}],
                                  GenerateParams.of(max_tokens=MEASURE_TOKENS, seed=0))
    took = time.perf_counter() - start
    tokens = completion.usage.output_tokens + completion.usage.reasoning_tokens
    if tokens <= 0 or took <= 0:
        return None
    return Speed(tokens / took, f"measured now: {tokens} tokens after a "
                                f"{completion.usage.input_tokens}-token prompt in {took:.1f} s")


__all__ = ["MEASURE_PROMPT", "Speed", "measured_speed", "model_id_of", "recorded_speed"]
