import math

import pytest
from scipy.stats import binomtest

from tether.stats import paired_sign_test, sign_test


def test_worked_example_17_improved_2_regressed():
    r = sign_test(17, 2)
    # exact: 2 * (C(19,0) + C(19,1) + C(19,2)) / 2**19 = 382 / 524288
    assert r.p_value == 382 / 524288
    assert round(r.p_value, 5) == pytest.approx(7.3e-4)
    assert (r.improved, r.regressed, r.n_decisive) == (17, 2, 19)


@pytest.mark.parametrize("n", range(1, 41))
def test_matches_scipy_binomtest_for_every_split(n):
    for k in range(n + 1):
        expected = binomtest(k, n, 0.5, alternative="two-sided").pvalue
        assert sign_test(k, n - k).p_value == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_symmetric_and_no_decisive_pairs():
    assert sign_test(2, 17).p_value == sign_test(17, 2).p_value
    assert sign_test(0, 0, ties=5).p_value == 1.0
    assert sign_test(5, 5).p_value == 1.0


def test_ties_are_dropped_not_counted():
    a = [0, 0, 1, 1, 0, 1, 0, 0]
    b = [1, 1, 1, 0, 0, 1, 1, 1]
    r = paired_sign_test(a, b)
    assert (r.improved, r.regressed, r.ties, r.n_decisive) == (4, 1, 3, 5)
    assert r.p_value == sign_test(4, 1).p_value == pytest.approx(binomtest(4, 5).pvalue)


def test_lower_is_better_flips_the_direction():
    baseline_defects = [5, 3, 4, 0, 2]
    candidate_defects = [1, 3, 0, 1, 0]
    r = paired_sign_test(baseline_defects, candidate_defects, higher_is_better=False)
    assert (r.improved, r.regressed, r.ties) == (3, 1, 1)


def test_rejects_nan_and_mismatched_lengths():
    with pytest.raises(ValueError):
        paired_sign_test([1.0, math.nan], [0.0, 1.0])
    with pytest.raises(ValueError):
        paired_sign_test([1.0], [0.0, 1.0])
    with pytest.raises(ValueError):
        sign_test(-1, 2)
