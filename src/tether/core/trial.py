"""Trial: one (task, strategy, models, budget, seed) run and everything it did."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, Field

from tether.core.budget import BudgetSpec
from tether.core.end_state import END_STATES, AgentEndState, EndState
from tether.core.observation import Observation
from tether.models import CallRecord, Usage

_AGENT_ENDINGS = frozenset(s.value for s in AgentEndState)

__all__ = ["END_STATES", "EndState", "ObservationRow", "TrialRecord", "TrialSpec"]


class TrialSpec(BaseModel):
    """What to run. Its canonical JSON hash is the trial id, so resume can match trials."""

    suite: str
    task_id: str
    strategy: str
    strategy_params: dict[str, Any] = Field(default_factory=dict)
    models: dict[str, str]
    budget: BudgetSpec = Field(default_factory=BudgetSpec)
    seed: int = 0
    #: the arm's name in reports (the experiment's strategy label; "" means the strategy)
    label: str = ""

    @property
    def trial_id(self) -> str:
        data = self.model_dump(mode="json")
        if not data["label"]:
            del data["label"]  # unlabelled specs keep the ids they had before labels existed
        canonical = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    @property
    def task_key(self) -> str:
        return f"{self.suite}/{self.task_id}"

    @property
    def arm(self) -> str:
        """The comparison arm: the strategy's label (its name when unlabelled).

        Reports compare arms at a budget: pair it with `budget.label`."""
        return self.label or self.strategy


class ObservationRow(BaseModel):
    """An observation made during the trial, with what it was for and what it saw."""

    purpose: str  # "feedback", "selection", "metric", ...
    artifact: str | None  # digest of the observed artifact
    observation: Observation


class TrialRecord(BaseModel):
    trial_id: str
    index: int
    spec: TrialSpec
    status: str
    error_kind: str | None = None
    error_message: str | None = None
    #: every model call of the trial, in order (one type with the recorder's records)
    calls: list[CallRecord] = Field(default_factory=list)
    observations: list[ObservationRow] = Field(default_factory=list)
    artifact: str | None = None  # digest of the delivered artifact
    artifact_kind: str | None = None
    metric: Observation | None = None
    #: what the ledger charged per role (metric calls are recorded, never charged)
    spend: dict[str, Usage] = Field(default_factory=dict)
    extra: dict[str, Any] = Field(default_factory=dict)
    wall_s: float = 0.0
    #: when the trial started (Unix time, seconds); None in records written before
    #: starts were kept (an export then shows no time rather than an invented one)
    started_at: float | None = None

    @property
    def unscored(self) -> bool:
        """The strategy recorded that the trial has no answer to score (facts `valid` =
        false: a scene loop with no successful generated render). Such a trial is counted
        apart, like an error, and never read as a fail or a 0."""
        return self.extra.get("valid") is False

    @property
    def stopped_by_harness(self) -> bool:
        """A terminal-agent attempt the harness stopped (out of context, a time or step
        limit, repeated format errors): a failure whatever its verifier said, by the
        turn-level best-of-N paper's rule (`AgentEndState`)."""
        state = self.extra.get("end_state")
        if not isinstance(state, str) or state not in _AGENT_ENDINGS:
            return False
        return AgentEndState(state).stopped

    @property
    def passed(self) -> bool | None:
        """Metric verdict; None for errored or unscored trials (never read as a fail).

        One rule for every reader (summary, paired tests, report, exports): an agent
        attempt the harness stopped has not passed, whatever the verifier said of its
        final state; the verifier's observation stays in `metric` (invariant 1)."""
        if self.status == "error" or self.unscored:
            return None
        if self.metric is not None and self.metric.ok:
            return False if self.stopped_by_harness else bool(self.metric.passed)
        return False if self.metric is None else None

    @property
    def score(self) -> float | None:
        """The metric's score; 0.0 for an agent attempt the harness stopped (see
        `passed`), None for errored or unscored trials."""
        if self.status == "error" or self.unscored:
            return None
        if self.metric is not None:
            if not self.metric.ok:
                return None
            return 0.0 if self.stopped_by_harness else self.metric.score
        return 0.0

    def tokens(self, kind: str = "output") -> int:
        return sum(getattr(s, f"{kind}_tokens") for s in self.spend.values())
