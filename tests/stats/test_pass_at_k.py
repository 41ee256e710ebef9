from itertools import combinations
from math import comb

import pytest

from tether.stats import mean_pass_at_k, pass_at_k


def brute_force(n, c, k):
    samples = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


def test_matches_brute_force_over_subsets():
    for n in range(1, 9):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_at_k(n, c, k) == pytest.approx(brute_force(n, c, k), abs=1e-12)


def test_matches_binomial_formula_for_large_n():
    for n, c, k in [(200, 13, 50), (100, 1, 1), (100, 0, 10), (1000, 37, 100)]:
        expected = 1 - comb(n - c, k) / comb(n, k)
        assert pass_at_k(n, c, k) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_pass_at_1_is_the_success_rate_and_edges():
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(5, 4, 2) == 1.0  # every pair includes a correct sample
    assert pass_at_k(5, 0, 5) == 0.0
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)


def test_mean_over_tasks_weighs_tasks_equally():
    tasks = {"a": (10, 3), "b": (4, 0), "c": (2, 2)}
    expected = (pass_at_k(10, 3, 2) + 0.0 + 1.0) / 3
    assert mean_pass_at_k(tasks, 2) == pytest.approx(expected)
    assert mean_pass_at_k(list(tasks.values()), 2) == pytest.approx(expected)
