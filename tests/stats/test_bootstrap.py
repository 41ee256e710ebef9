import itertools
import random

import numpy as np
import pytest
from scipy import stats as sps

from tether.stats import PairedObservation, bootstrap_mean, paired_bootstrap


def obs(task, seed, a, b):
    return PairedObservation(task=task, seed=seed, a=a, b=b)


def test_estimates_on_the_full_data():
    records = [obs("t1", 0, 4, 1), obs("t1", 1, 2, 2), obs("t2", 0, 6, 3), obs("t3", 0, 0, 1)]
    md = paired_bootstrap(records, "mean_diff", n_resamples=200)
    assert md.estimate == pytest.approx((7 - 12) / 4)
    rr = paired_bootstrap(records, "relative_reduction", n_resamples=200)
    assert rr.estimate == pytest.approx(100 * (1 - 7 / 12))
    assert (rr.n_resamples, rr.seed, rr.n_tasks, rr.ci) == (200, 0, 3, 0.95)
    assert md.low <= md.estimate <= md.high


def test_fixed_seed_reproduces_and_record_order_does_not_matter():
    rng = random.Random(1)
    records = [obs(f"t{t}", s, rng.random(), rng.random()) for t in range(8) for s in range(3)]
    first = paired_bootstrap(records, n_resamples=2000, seed=7)
    shuffled = records[:]
    random.Random(2).shuffle(shuffled)
    assert paired_bootstrap(shuffled, n_resamples=2000, seed=7) == first
    assert paired_bootstrap(records, n_resamples=2000, seed=8) != first


def test_task_is_the_resampling_unit():
    # Ten seeds per task that agree exactly: the seeds add no information, so the CI
    # must be that of the five task means, not of fifty independent trials.
    task_effects = [-1.0, 0.0, 1.0, 2.0, 3.0]
    records = [obs(f"t{i}", s, 0.0, d) for i, d in enumerate(task_effects) for s in range(10)]
    r = paired_bootstrap(records, "mean_diff", n_resamples=40_000, seed=3)
    # Exact bootstrap distribution: mean of 5 task means drawn with replacement.
    means = np.sort([np.mean(c) for c in itertools.product(task_effects, repeat=5)])
    exact_low, exact_high = np.quantile(means, [0.025, 0.975])
    assert r.low == pytest.approx(exact_low, abs=0.05)
    assert r.high == pytest.approx(exact_high, abs=0.05)
    # A bootstrap that treated the 50 trials as independent would be far narrower.
    naive = np.quantile(np.random.default_rng(0).choice(
        np.repeat(task_effects, 10), size=(20_000, 50)).mean(axis=1), [0.025, 0.975])
    assert (r.high - r.low) > 2 * (naive[1] - naive[0])


def test_seeds_are_resampled_inside_a_task():
    records = [obs("only", s, 0.0, float(s % 2)) for s in range(20)]
    nested = paired_bootstrap(records, n_resamples=5000, seed=0)
    assert nested.high - nested.low > 0.2
    fixed = paired_bootstrap(records, n_resamples=5000, seed=0, resample_seeds=False)
    assert fixed.low == fixed.high == fixed.estimate == 0.5


def test_one_seed_per_task_agrees_with_scipy_percentile_bootstrap():
    rng = np.random.default_rng(5)
    a = rng.normal(1.0, 1.0, 40)
    b = a + rng.normal(0.3, 0.5, 40)
    records = [obs(f"t{i}", 0, float(x), float(y))
               for i, (x, y) in enumerate(zip(a, b, strict=True))]
    ours = paired_bootstrap(records, n_resamples=20_000, seed=0)
    ref = sps.bootstrap((b - a,), np.mean, method="percentile", n_resamples=20_000,
                        random_state=np.random.default_rng(1)).confidence_interval
    width = ref.high - ref.low
    assert ours.low == pytest.approx(ref.low, abs=0.05 * width)
    assert ours.high == pytest.approx(ref.high, abs=0.05 * width)


def test_relative_reduction_drops_undefined_resamples():
    records = [obs("zero", 0, 0.0, 1.0), obs("some", 0, 4.0, 1.0)]
    r = paired_bootstrap(records, "relative_reduction", n_resamples=4000, seed=0)
    assert r.estimate == pytest.approx(100 * (1 - 2 / 4))
    # P(both draws are the zero task) = 1/4 of resamples have sum(a) == 0.
    assert 800 < r.n_dropped < 1200
    # Kept resamples are {some, some} -> 75% or {zero, some} -> 50%.
    assert (r.low, r.high) == (pytest.approx(50.0), pytest.approx(75.0))


def test_bootstrap_mean_is_a_one_sample_clustered_mean():
    values = [("t1", 0, 3.0), ("t1", 1, 5.0), ("t2", 0, 0.0), ("t3", 0, 8.0)]
    r = bootstrap_mean(values, n_resamples=3000)
    assert r.statistic == "mean"
    assert r.estimate == pytest.approx(4.0)
    assert 0.0 <= r.low < 4.0 < r.high <= 8.0


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        paired_bootstrap([], n_resamples=10)
    with pytest.raises(ValueError):
        paired_bootstrap([obs("t", 0, 1, 1), obs("t", 0, 2, 2)])
    with pytest.raises(ValueError):
        paired_bootstrap([obs("t", 0, 1, 1)], "median")  # type: ignore[arg-type]
