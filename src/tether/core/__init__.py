"""The vocabulary types: task, artifact, observation, budget, trial.

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.core.activity import (
        Step as Step,
        long_step as long_step,
        running_steps as running_steps,
    )
    from tether.core.artifact import (
        MEDIA_TYPES as MEDIA_TYPES,
        Artifact as Artifact,
        Truncated as Truncated,
        complete_program as complete_program,
        extract_artifact as extract_artifact,
        strip_thinking as strip_thinking,
    )
    from tether.core.budget import (
        BudgetExhausted as BudgetExhausted,
        BudgetSpec as BudgetSpec,
        Ledger as Ledger,
    )
    from tether.core.end_state import (
        AGENT_END_STATES as AGENT_END_STATES,
        AgentEndState as AgentEndState,
        EndState as EndState,
    )
    from tether.core.facts import (
        AgentFacts as AgentFacts,
        ArmFacts as ArmFacts,
        DraftFacts as DraftFacts,
        Facts as Facts,
        LoopFacts as LoopFacts,
        SelectionFacts as SelectionFacts,
        TurnFacts as TurnFacts,
        WidthFacts as WidthFacts,
        facts_of as facts_of,
    )
    from tether.core.observation import (
        Aggregation as Aggregation,
        Defect as Defect,
        Observation as Observation,
        rank_key as rank_key,
    )
    from tether.core.task import Task as Task
    from tether.core.trial import (
        END_STATES as END_STATES,
        ObservationRow as ObservationRow,
        TrialRecord as TrialRecord,
        TrialSpec as TrialSpec,
    )

_HOMES: dict[str, str] = {
    "AGENT_END_STATES": "tether.core.end_state",
    "AgentEndState": "tether.core.end_state",
    "AgentFacts": "tether.core.facts",
    "Aggregation": "tether.core.observation",
    "ArmFacts": "tether.core.facts",
    "Artifact": "tether.core.artifact",
    "BudgetExhausted": "tether.core.budget",
    "BudgetSpec": "tether.core.budget",
    "Defect": "tether.core.observation",
    "DraftFacts": "tether.core.facts",
    "END_STATES": "tether.core.trial",
    "EndState": "tether.core.end_state",
    "Facts": "tether.core.facts",
    "Ledger": "tether.core.budget",
    "LoopFacts": "tether.core.facts",
    "MEDIA_TYPES": "tether.core.artifact",
    "Observation": "tether.core.observation",
    "ObservationRow": "tether.core.trial",
    "SelectionFacts": "tether.core.facts",
    "Step": "tether.core.activity",
    "Task": "tether.core.task",
    "TrialRecord": "tether.core.trial",
    "TrialSpec": "tether.core.trial",
    "Truncated": "tether.core.artifact",
    "TurnFacts": "tether.core.facts",
    "WidthFacts": "tether.core.facts",
    "complete_program": "tether.core.artifact",
    "extract_artifact": "tether.core.artifact",
    "facts_of": "tether.core.facts",
    "long_step": "tether.core.activity",
    "rank_key": "tether.core.observation",
    "running_steps": "tether.core.activity",
    "strip_thinking": "tether.core.artifact",
}
__all__ = [
    "AGENT_END_STATES",
    "AgentEndState",
    "AgentFacts",
    "Aggregation",
    "ArmFacts",
    "Artifact",
    "BudgetExhausted",
    "BudgetSpec",
    "Defect",
    "DraftFacts",
    "END_STATES",
    "EndState",
    "Facts",
    "Ledger",
    "LoopFacts",
    "MEDIA_TYPES",
    "Observation",
    "ObservationRow",
    "SelectionFacts",
    "Step",
    "Task",
    "TrialRecord",
    "TrialSpec",
    "Truncated",
    "TurnFacts",
    "WidthFacts",
    "complete_program",
    "extract_artifact",
    "facts_of",
    "long_step",
    "rank_key",
    "running_steps",
    "strip_thinking",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
