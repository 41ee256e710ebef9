"""How a trial ended, and how a terminal-agent attempt ended: one enum each, used by the
store, the strategies and the report (string-valued, so stored runs read back as is)."""

from __future__ import annotations

from enum import StrEnum


class EndState(StrEnum):
    """A trial's status. `error` is an infrastructure or harness failure (never a score);
    the others are the model's outcome and score as not passing when nothing passed."""

    OK = "ok"
    ERROR = "error"
    TRUNCATED = "truncated"
    BUDGET_EXHAUSTED = "budget_exhausted"
    TIMEOUT = "timeout"


class AgentEndState(StrEnum):
    """How one terminal-agent attempt ended (the turn-level best-of-N paper's end states)."""

    PASS = "pass"
    WRONG_SUBMISSION = "wrong_submission"
    OUT_OF_CONTEXT = "out_of_context"
    TIME_LIMIT = "time_limit"
    AGENT_ERROR = "agent_error"

    @property
    def trial_status(self) -> EndState:
        """The trial record's status for this end state (its finer reason is in the facts)."""
        return _AGENT_STATUS[self]


_AGENT_STATUS = {
    AgentEndState.PASS: EndState.OK,
    AgentEndState.WRONG_SUBMISSION: EndState.OK,
    AgentEndState.OUT_OF_CONTEXT: EndState.TRUNCATED,
    AgentEndState.TIME_LIMIT: EndState.TIMEOUT,
    AgentEndState.AGENT_ERROR: EndState.ERROR,
}

END_STATES: tuple[str, ...] = tuple(s.value for s in EndState)
AGENT_END_STATES: tuple[str, ...] = tuple(s.value for s in AgentEndState)
