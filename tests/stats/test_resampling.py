"""tether.stats.resampling: the defaults every resampled number uses, readable without
the statistics themselves."""

import subprocess
import sys

from tether.stats import N_RESAMPLES, SEED, Resampling, paired, resampling_of


def test_the_defaults_are_the_ones_the_statistics_use() -> None:
    assert (N_RESAMPLES, SEED) == (10_000, 0)
    assert (paired.N_RESAMPLES, paired.SEED) == (N_RESAMPLES, SEED)
    assert resampling_of(None) == Resampling(n_resamples=N_RESAMPLES, seed=SEED)
    assert resampling_of({"stats": {"n_resamples": 5000}}).n_resamples == 5000


def test_reading_a_run_config_does_not_load_numpy() -> None:
    # numpy is a tenth of a second of every run's start, and a config needs only the
    # defaults: the statistics load it when they run
    code = ("import sys, tether.runs.config, tether.stats.resampling; "
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
