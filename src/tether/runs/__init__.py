"""Runs: the run directory and its store, the experiment runner, resume."""

from tether.runs.store import RunStore
from tether.runs.trial_runner import run_trial

__all__ = ["RunStore", "run_trial"]
