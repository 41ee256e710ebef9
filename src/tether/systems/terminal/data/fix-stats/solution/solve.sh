#!/bin/bash
cat > /app/stats.py <<'PY'
"""Small descriptive statistics over lists of numbers."""

from collections import Counter


def _require(xs):
    if not xs:
        raise ValueError("empty input")


def mean(xs):
    _require(xs)
    return sum(xs) / len(xs)


def median(xs):
    _require(xs)
    s = sorted(xs)
    n = len(s)
    if n % 2:
        return s[n // 2]
    return (s[n // 2 - 1] + s[n // 2]) / 2


def mode(xs):
    _require(xs)
    counts = Counter(xs)
    best = max(counts.values())
    return min(x for x, c in counts.items() if c == best)


def variance(xs):
    _require(xs)
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / len(xs)
PY
