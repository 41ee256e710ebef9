import math
import statistics

import numpy as np
import pytest

from tether.stats import mean_sd

VALUES = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]


def test_sample_and_population_conventions():
    s = mean_sd(VALUES, "sample")
    p = mean_sd(VALUES, "population")
    assert s.mean == p.mean == 5.0
    assert p.sd == 2.0 == pytest.approx(np.std(VALUES, ddof=0))
    assert s.sd == pytest.approx(statistics.stdev(VALUES)) == pytest.approx(
        np.std(VALUES, ddof=1))


def test_convention_is_stated_in_the_output():
    text = str(mean_sd(VALUES, "sample"))
    assert text == "5.000 ± 2.138 (sample SD, n=8)"
    assert "population SD" in mean_sd(VALUES, "population").format(1)


def test_single_value_and_errors():
    assert math.isnan(mean_sd([3.0], "sample").sd)
    assert mean_sd([3.0], "population").sd == 0.0
    with pytest.raises(ValueError):
        mean_sd([], "sample")
    with pytest.raises(ValueError):
        mean_sd([1.0], "median")  # type: ignore[arg-type]
