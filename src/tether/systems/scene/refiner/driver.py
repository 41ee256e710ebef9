"""The paper's Algorithm 1: alternatives in the fixed order, endpoint shortcuts, a cap of
six additional executions (failed ones included), then raw, then the previous record.

The listing's branches are kept exactly: a light recovery whose endpoints the raw
record already realizes is skipped; full-effect projection whose endpoints the raw
record matches returns the raw record when Valid_h(raw) holds against the previous
record, and otherwise continues WITHOUT executing its compiled program; every other
constructed candidate is executed afresh from the base under the cap. No model calls.

`projection_scope` (spec.PROJECTION_SCOPES): "paper" runs the listing as it stands;
"keep_other_writes" makes a projection ineligible (recorded, never executed) when the
submission wrote anything outside the light channel it projects (scope.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypedDict

from tether.systems.scene.executor import RenderSettings, SceneExecutor
from tether.systems.scene.record import Refinement, SceneRecord
from tether.systems.scene.refiner import light, projection, recovery, scope
from tether.systems.scene.refiner.candidate import Candidate
from tether.systems.scene.refiner.contract import valid
from tether.systems.scene.refiner.spec import (
    ALTERNATIVES,
    DEFAULT_PROJECTION_SCOPE,
    MAX_EXTRA_EXECUTIONS,
    PROJECTION_ALPHA,
    PROJECTION_SCOPES,
)  # fmt: skip

# builder(raw, initial, previous) -> the alternative's candidate, or None (unavailable)
Builder = Callable[[SceneRecord, SceneRecord, SceneRecord], Candidate | None]

BUILDERS: dict[str, Builder] = {
    "recovery_current": lambda raw, z0, prev: recovery.build("recovery_current", raw, raw),
    "recovery_initial": lambda raw, z0, prev: recovery.build("recovery_initial", raw, z0),
    "light_recovery_current":
        lambda raw, z0, prev: light.build_recovery("light_recovery_current", raw, raw),
    "light_recovery_initial":
        lambda raw, z0, prev: light.build_recovery("light_recovery_initial", raw, z0),
    "projection_full": lambda raw, z0, prev: projection.build("projection_full", raw, prev),
    "projection_half": lambda raw, z0, prev: projection.build("projection_half", raw, prev),
}  # fmt: skip
assert tuple(BUILDERS) == ALTERNATIVES


def compile_alternatives(raw: SceneRecord, initial: SceneRecord, previous: SceneRecord,
                         ) -> list[tuple[str, Candidate | None]]:
    """Every alternative's candidate (None: unavailable), built before any execution."""
    return [(name, build(raw, initial, previous)) for name, build in BUILDERS.items()]


def refine(
    program: str,
    *,
    executor: SceneExecutor,
    previous: SceneRecord,
    initial: SceneRecord,
    render: RenderSettings,
    base: Path | None = None,
    max_executions: int = MAX_EXTRA_EXECUTIONS,
    alternatives: Sequence[tuple[str, Builder]] | None = None,
    projection_scope: str = DEFAULT_PROJECTION_SCOPE,
) -> Refinement:
    """Execute the submitted program, then refine it from its execution evidence."""
    _check_scope(projection_scope)  # before the raw execution
    raw = SceneRecord(program, executor.execute(program, render=render, **_base(base)))
    return refine_record(raw, executor=executor, previous=previous, initial=initial,
                         render=render, base=base, max_executions=max_executions,
                         alternatives=alternatives, projection_scope=projection_scope)


def refine_record(
    raw: SceneRecord,
    *,
    executor: SceneExecutor,
    previous: SceneRecord,
    initial: SceneRecord,
    render: RenderSettings,
    base: Path | None = None,
    max_executions: int = MAX_EXTRA_EXECUTIONS,
    alternatives: Sequence[tuple[str, Builder]] | None = None,
    projection_scope: str = DEFAULT_PROJECTION_SCOPE,
) -> Refinement:
    """Algorithm 1 on an already executed raw record."""
    _check_scope(projection_scope)
    spent = 0
    tried: list[dict[str, Any]] = []
    for name, build in alternatives if alternatives is not None else BUILDERS.items():
        start = time.perf_counter()
        problem = None
        try:
            cand = build(raw, initial, previous)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            # Evidence the compiler cannot use (an odd value, a malformed state): this
            # alternative is unsupported here; the submission still gets delivered.
            cand, problem = None, f"{type(exc).__name__}: {exc}"
        entry: dict[str, Any] = {"alternative": name,
                                 "compile_ms": round(1000 * (time.perf_counter() - start), 3)}
        tried.append(entry)
        if cand is None:
            entry["outcome"] = "unavailable" + (f" ({problem})" if problem else "")
            continue
        entry["patch"] = cand.patch
        if projection_scope == "keep_other_writes" and name in PROJECTION_ALPHA:
            dropped = scope.other_writes(raw, previous, projection.in_scope(raw, previous))
            if dropped:
                entry["outcome"] = ("not eligible (keep_other_writes): the submission also "
                                    f"changes {scope.describe(dropped)}")
                entry["other_writes"] = len(dropped)
                continue
        if name.startswith("light_recovery") and light.realized(cand, raw):
            entry["outcome"] = "skipped: the raw record realizes its endpoints"
            continue
        if name == "projection_full" and light.realized(cand, raw):
            ok, checks = valid(cand, raw.execution)
            entry["checks"] = checks
            if ok:
                entry["outcome"] = "accepted: raw record reused"
                return Refinement(raw, raw, name, spent, checks, tried, projection_scope)
            entry["outcome"] = "skipped: endpoints match but the raw record fails the contract"
            continue  # the listing: do not fall through to executing the compiled program
        if spent >= max_executions:
            entry["outcome"] = "not executed: the execution cap is reached"
            break
        spent += 1
        ex = executor.execute(cand.program, render=render, **_base(base))
        ok, checks = valid(cand, ex)
        entry["checks"] = checks
        entry["outcome"] = "accepted" if ok else "rejected"
        if ok:
            return Refinement(raw, SceneRecord(cand.program, ex), name, spent, checks, tried,
                              projection_scope)
    if raw.rendered:
        return Refinement(raw, raw, "raw", spent, {}, tried, projection_scope)
    if previous.execution.ok:
        return Refinement(raw, previous, "previous", spent, {}, tried, projection_scope)
    return Refinement(raw, None, "none", spent, {}, tried, projection_scope)


def _check_scope(projection_scope: str) -> None:
    if projection_scope not in PROJECTION_SCOPES:
        raise ValueError(f"unknown projection scope {projection_scope!r} "
                         f"(one of {', '.join(PROJECTION_SCOPES)})")


class _Base(TypedDict, total=False):
    base: Path


def _base(base: Path | None) -> _Base:
    """`base` only when given: the minibpy double's executor has no base scenes."""
    return {} if base is None else {"base": base}
