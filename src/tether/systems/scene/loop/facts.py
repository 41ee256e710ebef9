"""SceneFacts: what a scene strategy reports about its trial (read by the report's scene
section). Plain JSON in the record's `extra`, like every tether.core.facts type.

valid: the trial has an answer to score (a successful selected generated render, no
timeout). An invalid trial is reported as such and never scored as 0.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tether.core import Facts

MARKER = "scene_strategy"


class SceneFacts(Facts):
    scene_strategy: str
    valid: bool = False
    #: why not valid: no_render (no successful generated render) | timeout
    invalid_reason: str | None = None
    #: why the loop stopped: end | cap | budget | timeout | delivered (one-shot)
    stop_reason: str | None = None
    family: str | None = None
    #: the task's difficulty level where its data declares one (BlenderBench), else None
    level: str | None = None
    interactions: int = 0
    invalid_replies: int = 0
    calls: dict[str, int] = Field(default_factory=dict)  # per role
    executions: int = 0
    renders: int = 0
    #: per submitted program: interaction, candidate, accepted, executions, raw_ok, error,
    #: selected
    submissions: list[dict[str, Any]] = Field(default_factory=list)
    #: per interaction: the candidates' action types, the chosen one, what happened
    rounds: list[dict[str, Any]] = Field(default_factory=list)
    modality: dict[str, str] = Field(default_factory=dict)  # per role: image | text
    settings: dict[str, Any] = Field(default_factory=dict)
    answer_interaction: int | None = None
    #: digests of kept artifacts holding base64 PNGs (kind "png_b64"): start, goal, delivered
    renders_kept: dict[str, str] = Field(default_factory=dict)
    wall_s: float | None = None

    def to_extra(self) -> dict[str, Any]:
        """Every field: the loop fills its lists in place, which pydantic does not mark set."""
        return self.model_dump(mode="json")


def scene_facts_of(extra: dict[str, Any]) -> SceneFacts | None:
    """`extra` read as SceneFacts, or None when the trial was not a scene strategy's."""
    if MARKER not in extra:
        return None
    try:
        return SceneFacts.model_validate(extra)
    except ValueError:
        return None
