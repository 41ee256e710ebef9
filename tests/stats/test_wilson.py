import math

import pytest

from tether.stats import wilson_interval

Z95 = 1.959963984540054


def closed_form(k, n, z=Z95):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(("k", "n", "low", "high"), [
    (8, 10, 0.4902, 0.9433),   # known textbook values
    (5, 10, 0.2366, 0.7634),
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (1, 20, 0.0089, 0.2361),
])
def test_known_values(k, n, low, high):
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_matches_closed_form_everywhere():
    for n in (1, 2, 7, 30, 101):
        for k in range(n + 1):
            lo, hi = wilson_interval(k, n)
            elo, ehi = closed_form(k, n)
            assert lo == pytest.approx(max(0.0, elo), abs=1e-12)
            assert hi == pytest.approx(min(1.0, ehi), abs=1e-12)
            assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_other_confidence_and_edge_cases():
    lo90, hi90 = wilson_interval(8, 10, 0.90)
    lo95, hi95 = wilson_interval(8, 10, 0.95)
    assert lo95 < lo90 < hi90 < hi95
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
