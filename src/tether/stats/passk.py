"""Unbiased pass@k estimator (n samples per task, c of them correct)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def _check(n: int, c: int, k: int) -> None:
    if n < 1:
        raise ValueError(f"pass@k needs n >= 1 samples, got n={n}")
    if not 0 <= c <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n, got c={c}, n={n}")
    if not 1 <= k <= n:
        raise ValueError(f"pass@k needs 1 <= k <= n, got k={k}, n={n}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples, drawn without replacement from n
    samples of which c are correct, is correct: 1 - C(n - c, k) / C(n, k).

    Computed as 1 - prod_{i = n-c+1}^{n} (1 - k / i), which avoids huge binomials.
    Returns 1.0 when n - c < k (every draw of k must include a correct sample).
    Raises ValueError unless n >= 1, 0 <= c <= n and 1 <= k <= n.
    """
    _check(n, c, k)
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def mean_pass_at_k(
    per_task: Mapping[str, tuple[int, int]] | Sequence[tuple[int, int]], k: int
) -> float:
    """Mean of per-task pass@k, each task given as (n, c); tasks are weighted equally.

    Accepts a mapping task -> (n, c) or a sequence of (n, c). Every task needs n >= k.
    """
    pairs = list(per_task.values()) if isinstance(per_task, Mapping) else list(per_task)
    if not pairs:
        raise ValueError("mean_pass_at_k needs at least one task")
    return sum(pass_at_k(n, c, k) for n, c in pairs) / len(pairs)
