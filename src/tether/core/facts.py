"""Typed facts a strategy reports about its trial, read by the report.

A strategy returns one of these in `StrategyResult.facts`; the runner stores it in the
trial record's `extra` (plain JSON, so run directories written before these types
existed read back through them), and the report reads it back with `facts_of`, never
by poking at dict keys. Unknown keys are kept (`extra="allow"`): a strategy may add
facts of its own without a schema change.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from tether.core.end_state import AgentEndState


class Facts(BaseModel):
    model_config = ConfigDict(extra="allow")

    def to_extra(self) -> dict[str, Any]:
        """The facts as stored in the record's `extra`: what the strategy set, as JSON."""
        return self.model_dump(mode="json", exclude_unset=True)


class DraftFacts(Facts):
    """The trial's single-shot draft, for the paired single-shot vs final comparison."""

    single_shot_score: float | None = None
    single_shot_passed: bool | None = None
    #: a defect-counting metric's count for the draft (geometry)
    single_shot_n_defects: float | None = None


class LoopFacts(DraftFacts):
    """A keep-best loop (self-loop, proposer-reviewer, IAD): iteration 0 is the draft."""

    single_shot_status: str | None = None
    final_score: float | None = None
    final_passed: bool | None = None
    best_iteration: int | None = None
    #: revisions made after the draft
    iterations: int = 0
    iteration_scores: list[float | None] = Field(default_factory=list)
    iteration_history: list[dict[str, Any]] = Field(default_factory=list)
    #: why the loop stopped: passed | cycles | budget | truncated | instrument_error
    stop_reason: str | None = None


class SelectionFacts(DraftFacts):
    """Best-of-N: N samples, one picked by a selector (sample 0 is the draft)."""

    n: int
    selector: str
    selected_index: int | None = None
    sample_status: list[str] = Field(default_factory=list)
    sample_scores: list[float | None] | None = None
    sample_passed: list[bool | None] | None = None
    selection_fallback: str | None = None


class ArmFacts(Facts):
    """The arm label a record carries itself (records written before the spec held it)."""

    arm: str | None = None


class WidthFacts(Facts):
    """How many candidates a turn had or attempts a trial made (the plain agent: 1)."""

    n: int = 1


class TurnFacts(Facts):
    """The turns an agent trial took so far: present on an interrupted trial too, which
    never reached an end state."""

    turns: int = 0
    turn_records: list[dict[str, Any]] = Field(default_factory=list)


class AgentFacts(TurnFacts):
    """A terminal-agent trial: how its attempt ended, its turns and tokens by role."""

    end_state: AgentEndState
    #: output tokens (reasoning included) per role, as `<role>_output`
    tokens: dict[str, float] = Field(default_factory=dict)


F = TypeVar("F", bound=Facts)
#: the key that kind of facts always carries, so a stored `extra` says which it holds
_MARKERS: dict[type[Facts], str] = {LoopFacts: "iteration_scores", SelectionFacts: "selector",
                                    AgentFacts: "end_state"}


def facts_of(extra: dict[str, Any], kind: type[F]) -> F | None:
    """`extra` read as `kind`, or None when the trial reported no facts of that kind."""
    marker = _MARKERS.get(kind)
    if marker is not None and marker not in extra:
        return None
    if kind is SelectionFacts and "end_state" in extra:
        return None  # a turn-level selector's agent trial, not a best-of-N selection
    if kind is DraftFacts and not any(k in extra for k in DraftFacts.model_fields):
        return None
    try:
        return kind.model_validate(extra)
    except ValueError:
        return None
