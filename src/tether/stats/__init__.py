"""Paired statistics for comparing strategies: exact tests, bootstrap CIs, summaries.

Conventions shared by every function here: A is the baseline and B the candidate,
so positive differences and "improved" mean B is better; tests are two-sided. Every
resampled number uses one setup, `N_RESAMPLES` resamples from `default_rng(SEED)` at
coverage `CI` (see `tether.stats.paired`). Importing the package does not import
scipy.stats (slow to load): the functions that need it import it when called.
"""

from tether.stats.consistency import ConsistencyResult, consistency_at_k
from tether.stats.mcnemar import McNemarResult, mcnemar_exact, mcnemar_from_pairs
from tether.stats.paired import (
    BOOTSTRAP_METHOD,
    CI,
    N_RESAMPLES,
    SEED,
    SIGN_TEST_METHOD,
    STATISTICS,
    BootstrapResult,
    PairedChange,
    PairedObservation,
    bootstrap_mean,
    paired_bootstrap,
    paired_change,
    sign_flip_test,
)
from tether.stats.pass_at_k import mean_pass_at_k, pass_at_k
from tether.stats.sign_test import SignTestResult, paired_sign_test, sign_test
from tether.stats.summary import SD_CONVENTIONS, MeanSD, mean_sd
from tether.stats.wilson import wilson_interval

__all__ = [
    "BOOTSTRAP_METHOD", "CI", "N_RESAMPLES", "SEED", "SIGN_TEST_METHOD", "STATISTICS",
    "BootstrapResult", "PairedChange", "PairedObservation", "bootstrap_mean",
    "paired_bootstrap", "paired_change", "sign_flip_test",
    "ConsistencyResult", "consistency_at_k",
    "McNemarResult", "mcnemar_exact", "mcnemar_from_pairs",
    "mean_pass_at_k", "pass_at_k",
    "SignTestResult", "paired_sign_test", "sign_test",
    "SD_CONVENTIONS", "MeanSD", "mean_sd",
    "wilson_interval",
]
