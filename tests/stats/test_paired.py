import itertools
import random

import numpy as np
import pytest
from scipy import stats as sps

from tether.stats import (
    CI,
    N_RESAMPLES,
    SEED,
    PairedObservation,
    bootstrap_mean,
    paired_bootstrap,
    paired_change,
    sign_flip_test,
)


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


def test_one_resampling_setup_is_every_default():
    assert (N_RESAMPLES, SEED, CI) == (10_000, 0, 0.95)
    records = [obs(f"t{i}", 0, 0.0, float(i % 3)) for i in range(6)]
    r = paired_bootstrap(records)
    assert (r.n_resamples, r.seed, r.ci) == (N_RESAMPLES, SEED, CI)
    assert paired_bootstrap(records, n_resamples=N_RESAMPLES, seed=SEED, ci=CI) == r
    m = bootstrap_mean([("t", 0, 1.0), ("u", 0, 2.0)])
    assert (m.n_resamples, m.seed, m.ci) == (N_RESAMPLES, SEED, CI)


def test_a_constant_difference_has_a_zero_width_interval():
    records = [obs(f"t{t}", s, float(t + s), float(t + s) + 0.25)
               for t in range(7) for s in range(3)]
    r = paired_bootstrap(records)
    assert r.low == r.high == pytest.approx(0.25) == r.estimate


def test_sign_flip_test_is_scipys_permutation_test_over_task_means():
    # Two seeds per task: the test sees the per-task mean differences only.
    effects = {"a": (0.5, 1.5), "b": (2.0, 0.0), "c": (-0.5, -0.5), "d": (3.0, 1.0),
               "e": (0.25, 0.75), "f": (1.0, 1.0)}
    records = [obs(t, s, 1.0, 1.0 + d) for t, ds in effects.items() for s, d in enumerate(ds)]
    means = np.array([sum(ds) / 2 for ds in effects.values()])
    ref = sps.permutation_test((means,), np.mean, permutation_type="samples",
                               n_resamples=N_RESAMPLES, alternative="two-sided")
    assert sign_flip_test(records) == pytest.approx(ref.pvalue)
    # Exact here (2**6 patterns). Task means 1, 1, -0.5, 2, 0.5, 1 sum to 5; flipping a
    # subset of sum x gives 5 - 2x, as extreme when x <= 0 or x >= 5: {}, {c}, {c, e}
    # and their complements, 6 of 64.
    assert sign_flip_test(records) == pytest.approx(6 / 64)


def test_sign_flip_test_known_answers_and_reproducibility():
    same = [obs(f"t{i}", 0, 1.0, 1.0) for i in range(4)]
    assert sign_flip_test(same) == 1.0
    # five tasks, all better: only the all-plus and all-minus patterns are as extreme
    assert sign_flip_test([obs(f"t{i}", 0, 0.0, 1.0) for i in range(5)]) == pytest.approx(2 / 32)
    rng = random.Random(4)
    many = [obs(f"t{i}", 0, rng.random(), rng.random() + 0.1) for i in range(30)]
    assert sign_flip_test(many) == sign_flip_test(list(reversed(many)))  # random flips
    with pytest.raises(ValueError):
        sign_flip_test([])


def test_paired_change_pass_fail_is_mcnemar_with_a_bootstrap_interval():
    ref = {f"i{k}": 1.0 for k in range(10)}
    new = {**{f"i{k}": 0.0 for k in range(8)}, "i8": 1.0, "i9": 1.0, "only_new": 1.0}
    change = paired_change({**ref, "only_ref": 0.0}, new, graded=False)
    assert (change.n, change.test) == (10, "mcnemar")
    assert (change.reference, change.changed, change.delta) == (100.0, 20.0, -80.0)
    assert change.p_value == pytest.approx(sps.binomtest(8, 8).pvalue)  # 8 lost, 0 won
    boot = paired_bootstrap([obs(k, 0, ref[k], new[k]) for k in sorted(ref)])
    assert (change.low, change.high) == (100 * boot.low, 100 * boot.high)
    assert change.low < change.delta < change.high <= 0


def test_paired_change_graded_is_the_sign_test_and_handles_no_matched_item():
    change = paired_change({"x": 0.9, "y": 0.5, "z": 0.2}, {"x": 0.8, "y": 0.5, "z": 0.1},
                           graded=True)
    assert change.test == "sign" and change.delta == pytest.approx(-20 / 3)
    assert change.p_value == pytest.approx(0.5)  # 0 improved, 2 regressed, 1 tie
    assert change.low == pytest.approx(-10.0) and change.high == pytest.approx(0.0)
    empty = paired_change({"x": 1.0}, {"y": 1.0}, graded=True)
    assert (empty.n, empty.low, empty.high, empty.p_value) == (0, None, None, 1.0)


def test_the_bootstrap_over_pairs_agrees_with_scipy_on_the_flat_pairs():
    """unit="pair": every (task, seed) pair is one unit, so the interval is scipy's
    one-level percentile bootstrap of the pair differences."""
    rng = np.random.default_rng(7)
    records = [obs(f"t{t}", s, 0.0, float(rng.normal(t % 3, 1.0)))
               for t in range(12) for s in range(3)]
    diffs = np.array([r.b - r.a for r in sorted(records, key=lambda r: (r.task, r.seed))])
    ours = paired_bootstrap(records, n_resamples=20_000, unit="pair")
    ref = sps.bootstrap((diffs,), np.mean, method="percentile", n_resamples=20_000,
                        random_state=np.random.default_rng(1)).confidence_interval
    width = ref.high - ref.low
    assert ours.unit == "pair" and ours.n_tasks == 12
    assert ours.estimate == pytest.approx(diffs.mean())
    assert ours.low == pytest.approx(ref.low, abs=0.05 * width)
    assert ours.high == pytest.approx(ref.high, abs=0.05 * width)
    # tasks that differ make the clustered interval wider than the one over pairs
    nested = paired_bootstrap(records, n_resamples=20_000)
    assert nested.high - nested.low > ours.high - ours.low


def test_the_bootstrap_over_pairs_ignores_record_order_and_checks_its_unit():
    records = [obs(f"t{t}", s, float(t + s), float(t * s)) for t in range(5) for s in range(2)]
    one = paired_bootstrap(records, "relative_reduction", n_resamples=500, unit="pair")
    two = paired_bootstrap(list(reversed(records)), "relative_reduction", n_resamples=500,
                           unit="pair")
    assert (one.low, one.high) == (two.low, two.high)
    with pytest.raises(ValueError, match="unit must be one of"):
        paired_bootstrap(records, unit="seed")  # type: ignore[arg-type]


def test_the_bootstrap_p_value_agrees_with_its_interval():
    """p < 0.05 exactly when the 95% percentile interval leaves 0 out; no effect: p = 1."""
    clear = [obs(f"t{i}", 0, 0.0, 1.0 + (i % 3)) for i in range(15)]
    r = paired_bootstrap(clear, n_resamples=2000)
    assert r.low > 0 and r.p_value < 0.05
    mixed = [obs(f"t{i}", 0, 0.0, 1.0 if i % 2 else -1.0) for i in range(16)]
    m = paired_bootstrap(mixed, n_resamples=2000)
    assert m.low < 0 < m.high and m.p_value > 0.05
    none = paired_bootstrap([obs(f"t{i}", 0, 1.0, 1.0) for i in range(5)], n_resamples=200)
    assert none.p_value == 1.0
