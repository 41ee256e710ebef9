"""The vocabulary types: task, artifact, observation, budget, trial."""

from tether.core.artifact import Artifact, Truncated, extract_artifact
from tether.core.budget import BudgetExhausted, BudgetSpec, Ledger
from tether.core.observation import Defect, Observation
from tether.core.task import Task
from tether.core.trial import END_STATES, ObservationRow, TrialRecord, TrialSpec

__all__ = ["Artifact", "Truncated", "extract_artifact", "BudgetExhausted", "BudgetSpec",
           "Ledger", "Defect", "Observation", "Task", "END_STATES",
           "ObservationRow", "TrialRecord", "TrialSpec"]
