"""How many resamples a run's bootstrap intervals use: the one setting of `tether.stats`
an experiment may change (`[stats]` in its config), so a study reproduces a paper with
that paper's own count (VETR's tables: 5,000 resamples, seed 0).

The defaults, N_RESAMPLES (10,000) and SEED (0), live here rather than in `paired` so
that reading a config does not import numpy (a tenth of a second of every run's start).
The report records the count it used beside every interval that reads it.
"""

from __future__ import annotations

from pydantic import Field

from tether import params

#: resamples of every bootstrap interval and permutation test tether reports
N_RESAMPLES = 10_000
#: seed of ``numpy.random.default_rng`` for every resampled number
SEED = 0


class Resampling(params.Params):
    """The `[stats]` table of an experiment config."""

    n_resamples: int = Field(default=N_RESAMPLES, ge=100,
                             description="bootstrap resamples of every interval")
    seed: int = Field(default=SEED, ge=0, description="numpy default_rng seed of the resampling")


def resampling_of(config: dict | None) -> Resampling:
    """The run's resampling setting from its resolved config (the default when absent)."""
    found = (config or {}).get("stats") or {}
    return Resampling.model_validate(found)
