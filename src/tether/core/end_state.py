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
    """How one terminal-agent attempt ended: the turn-level best-of-N paper's endings
    (its appendix table of endings), plus `format_error`, tether's own.

    Only an attempt that ended on its own, by submitting, can pass: the verifier then
    decides between `pass` and `wrong_submission`. An attempt that the harness stopped
    (`out_of_context`, `time_limit`, `format_error`) is a failure whatever the verifier
    says of its final state; `agent_error` is the harness's or the sandbox's failure and
    is never scored. `format_error` is tether's: the attempt was stopped after
    `max_format_errors` replies in a row held no runnable command (the paper's harness
    has no such stop), a failure of the model, never an `agent_error`.
    """

    PASS = "pass"
    WRONG_SUBMISSION = "wrong_submission"
    OUT_OF_CONTEXT = "out_of_context"
    TIME_LIMIT = "time_limit"
    FORMAT_ERROR = "format_error"
    AGENT_ERROR = "agent_error"

    @property
    def trial_status(self) -> EndState:
        """The trial record's status for this end state (its finer reason is in the facts)."""
        return _AGENT_STATUS[self]

    @property
    def stopped(self) -> bool:
        """The harness stopped the attempt: a failure, whatever the verifier says."""
        return self in _STOPPED


_AGENT_STATUS = {
    AgentEndState.PASS: EndState.OK,
    AgentEndState.WRONG_SUBMISSION: EndState.OK,
    AgentEndState.OUT_OF_CONTEXT: EndState.TRUNCATED,
    AgentEndState.TIME_LIMIT: EndState.TIMEOUT,
    # the model's own failure to act, like a wrong submission: scored, never an error
    AgentEndState.FORMAT_ERROR: EndState.OK,
    AgentEndState.AGENT_ERROR: EndState.ERROR,
}
_STOPPED = frozenset({AgentEndState.OUT_OF_CONTEXT, AgentEndState.TIME_LIMIT,
                      AgentEndState.FORMAT_ERROR})

END_STATES: tuple[str, ...] = tuple(s.value for s in EndState)
AGENT_END_STATES: tuple[str, ...] = tuple(s.value for s in AgentEndState)
