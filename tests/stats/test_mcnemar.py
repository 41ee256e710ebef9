import pytest
from scipy.stats import binomtest

from tether.stats import mcnemar_exact, mcnemar_from_pairs


def test_worked_example():
    # 1 pair only A passed, 9 only B passed: 2 * (1 + 10) / 1024
    r = mcnemar_exact(1, 9)
    assert r.p_value == 22 / 1024 == 0.021484375
    assert r.n_discordant == 10


@pytest.mark.parametrize(("b", "c"), [(0, 0), (0, 1), (3, 3), (2, 12), (20, 7), (0, 25)])
def test_equals_exact_binomial_on_discordant_pairs(b, c):
    expected = 1.0 if b + c == 0 else binomtest(b, b + c, 0.5).pvalue
    assert mcnemar_exact(b, c).p_value == pytest.approx(expected, rel=1e-12)


def test_from_pairs_ignores_concordant_pairs():
    a = [True, True, False, False, True, False, False]
    b = [True, False, True, False, True, True, True]
    r = mcnemar_from_pairs(a, b)
    assert (r.b, r.c) == (1, 3)
    assert r.p_value == mcnemar_exact(1, 3).p_value
    with pytest.raises(ValueError):
        mcnemar_from_pairs([True], [True, False])
