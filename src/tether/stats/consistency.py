"""consistency@k: the share of tasks solved in at least k of their trials."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ConsistencyResult:
    """``solved`` of ``n_tasks`` tasks succeeded in at least ``k`` trials;
    ``fraction = solved / n_tasks``."""

    k: int
    solved: int
    n_tasks: int
    fraction: float


def consistency_at_k(
    per_task_successes: Mapping[str, Sequence[bool]], k: int
) -> ConsistencyResult:
    """Count tasks with at least ``k`` successful trials among their n trials.

    Every task must have at least ``k`` trials (a task with fewer could never count,
    which would silently hide missing runs); otherwise ValueError names the task.
    Tasks may have different trial counts. Empty input raises ValueError.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not per_task_successes:
        raise ValueError("consistency_at_k needs at least one task")
    solved = 0
    for task, outcomes in per_task_successes.items():
        if len(outcomes) < k:
            raise ValueError(f"task {task!r} has {len(outcomes)} trials, fewer than k={k}")
        if sum(1 for ok in outcomes if ok) >= k:
            solved += 1
    n_tasks = len(per_task_successes)
    return ConsistencyResult(k=k, solved=solved, n_tasks=n_tasks, fraction=solved / n_tasks)
