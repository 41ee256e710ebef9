"""Task: what to make, plus how it is judged."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Task(BaseModel):
    """One task of a suite.

    `metric` is an instrument spec (`name` or `name;key=value`): the trial's score
    always comes from it, whatever feedback a strategy used (invariant 1).
    `data` carries what the instruments need (checks, canvas size, ...); keys an
    instrument reads only for grading (hidden checks) never reach a prompt.
    """

    id: str
    suite: str
    prompt: str
    system: str | None = None
    artifact_kind: str = "program"
    metric: str
    data: dict[str, Any] = Field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.suite}/{self.id}"
