"""Paired statistics for comparing strategies: exact tests, bootstrap CIs, summaries.

Conventions shared by every function here: A is the baseline and B the candidate,
so positive differences and "improved" mean B is better; tests are two-sided. Every
resampled number uses one setup, `N_RESAMPLES` resamples from `default_rng(SEED)` at
coverage `CI` (see `tether.stats.paired`). Importing the package does not import
scipy.stats (slow to load): the functions that need it import it when called.

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.stats.consistency import (
        ConsistencyResult as ConsistencyResult,
        consistency_at_k as consistency_at_k,
    )
    from tether.stats.mcnemar import (
        McNemarResult as McNemarResult,
        mcnemar_exact as mcnemar_exact,
        mcnemar_from_pairs as mcnemar_from_pairs,
    )
    from tether.stats.paired import (
        BOOTSTRAP_METHOD as BOOTSTRAP_METHOD,
        BOOTSTRAP_UNITS as BOOTSTRAP_UNITS,
        CI as CI,
        PAIR_BOOTSTRAP_METHOD as PAIR_BOOTSTRAP_METHOD,
        SIGN_TEST_METHOD as SIGN_TEST_METHOD,
        STATISTICS as STATISTICS,
        BootstrapResult as BootstrapResult,
        PairedChange as PairedChange,
        PairedObservation as PairedObservation,
        bootstrap_mean as bootstrap_mean,
        paired_bootstrap as paired_bootstrap,
        paired_change as paired_change,
        sign_flip_test as sign_flip_test,
    )
    from tether.stats.passk import mean_pass_at_k as mean_pass_at_k, pass_at_k as pass_at_k
    from tether.stats.resampling import (
        N_RESAMPLES as N_RESAMPLES,
        SEED as SEED,
        Resampling as Resampling,
        resampling_of as resampling_of,
    )
    from tether.stats.sign import (
        SignTestResult as SignTestResult,
        paired_sign_test as paired_sign_test,
        sign_test as sign_test,
    )
    from tether.stats.summary import (
        SD_CONVENTIONS as SD_CONVENTIONS,
        MeanSD as MeanSD,
        mean_sd as mean_sd,
    )
    from tether.stats.wilson import wilson_interval as wilson_interval

_HOMES: dict[str, str] = {
    "BOOTSTRAP_METHOD": "tether.stats.paired",
    "BOOTSTRAP_UNITS": "tether.stats.paired",
    "BootstrapResult": "tether.stats.paired",
    "CI": "tether.stats.paired",
    "ConsistencyResult": "tether.stats.consistency",
    "McNemarResult": "tether.stats.mcnemar",
    "MeanSD": "tether.stats.summary",
    "N_RESAMPLES": "tether.stats.resampling",
    "PAIR_BOOTSTRAP_METHOD": "tether.stats.paired",
    "PairedChange": "tether.stats.paired",
    "PairedObservation": "tether.stats.paired",
    "Resampling": "tether.stats.resampling",
    "SD_CONVENTIONS": "tether.stats.summary",
    "SEED": "tether.stats.resampling",
    "SIGN_TEST_METHOD": "tether.stats.paired",
    "STATISTICS": "tether.stats.paired",
    "SignTestResult": "tether.stats.sign",
    "bootstrap_mean": "tether.stats.paired",
    "consistency_at_k": "tether.stats.consistency",
    "mcnemar_exact": "tether.stats.mcnemar",
    "mcnemar_from_pairs": "tether.stats.mcnemar",
    "mean_pass_at_k": "tether.stats.passk",
    "mean_sd": "tether.stats.summary",
    "paired_bootstrap": "tether.stats.paired",
    "paired_change": "tether.stats.paired",
    "paired_sign_test": "tether.stats.sign",
    "resampling_of": "tether.stats.resampling",
    "pass_at_k": "tether.stats.passk",
    "sign_flip_test": "tether.stats.paired",
    "sign_test": "tether.stats.sign",
    "wilson_interval": "tether.stats.wilson",
}
__all__ = [
    "BOOTSTRAP_METHOD",
    "BOOTSTRAP_UNITS",
    "BootstrapResult",
    "CI",
    "ConsistencyResult",
    "McNemarResult",
    "MeanSD",
    "N_RESAMPLES",
    "PAIR_BOOTSTRAP_METHOD",
    "PairedChange",
    "PairedObservation",
    "Resampling",
    "SD_CONVENTIONS",
    "SEED",
    "SIGN_TEST_METHOD",
    "STATISTICS",
    "SignTestResult",
    "bootstrap_mean",
    "consistency_at_k",
    "mcnemar_exact",
    "mcnemar_from_pairs",
    "mean_pass_at_k",
    "mean_sd",
    "paired_bootstrap",
    "paired_change",
    "paired_sign_test",
    "pass_at_k",
    "resampling_of",
    "sign_flip_test",
    "sign_test",
    "wilson_interval",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
