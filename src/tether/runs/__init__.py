"""Runs: the run directory and its store, the experiment runner, resume, rescoring."""

from tether.runs.config import Experiment, load_experiment
from tether.runs.expand import PlannedTrial, expand, load_tasks
from tether.runs.launch import RunRequest, execute, prepare
from tether.runs.store import RunStore
from tether.runs.trial_runner import run_trial

__all__ = ["Experiment", "PlannedTrial", "RunRequest", "RunStore", "execute", "expand",
           "load_experiment", "load_tasks", "prepare", "run_trial"]
