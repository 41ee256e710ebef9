"""Observation: what an instrument saw. The same object is feedback and metric."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

#: How a metric's observations of many trials aggregate into an arm's number.
Aggregation = Literal["pass_rate", "mean_score", "defect_count"]


class Defect(BaseModel):
    """One thing wrong with an artifact, with where and why."""

    kind: str
    message: str
    location: str | None = None
    evidence: dict[str, Any] = Field(default_factory=dict)


class Observation(BaseModel):
    """An instrument's reading of one artifact.

    `error` is set when the instrument itself failed (sandbox, browser, probe):
    such an observation has no score and is never read as a pass or as
    "no defects" (invariant 6).
    """

    instrument: str
    version: str
    grounded: bool
    score: float | None = None
    passed: bool | None = None
    defects: list[Defect] = Field(default_factory=list)
    raw: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    duration_s: float = 0.0
    #: False when the score counts defects (geometry): fewer is better. Keep-best
    #: loops, selectors and reports read the direction from here, never from a name.
    higher_is_better: bool = True
    #: How an arm aggregates this metric (the report reads it, never the instrument's
    #: name): `pass_rate` of verdicts, `mean_score`, or `defect_count` (lower is better).
    #: None means the instrument did not say: see `aggregate_as`.
    aggregation: Aggregation | None = None

    @model_validator(mode="before")
    @classmethod
    def _stored_before_aggregation(cls, data: Any) -> Any:
        # Observations stored before `aggregation` existed: the defect-counting ones (the
        # geometry instrument, anything with raw n_defects) declared nothing then.
        if isinstance(data, dict) and "aggregation" not in data and data.get("error") is None:
            raw = data.get("raw") or {}
            if str(data.get("instrument", "")).startswith("geometry") or "n_defects" in raw:
                data = {**data, "aggregation": "defect_count"}
        return data

    @property
    def aggregate_as(self) -> Aggregation:
        """The declared aggregation, else what the observation's fields support: a
        verdict aggregates as a pass rate, a bare score as a mean."""
        if self.aggregation is not None:
            return self.aggregation
        return "mean_score" if self.passed is None and self.score is not None else "pass_rate"

    @property
    def goodness(self) -> float | None:
        """The score oriented so that larger is always better (None without a score)."""
        if self.score is None:
            return None
        return self.score if self.higher_is_better else -self.score

    @property
    def ok(self) -> bool:
        return self.error is None

    def feedback(self) -> str:
        """Plain text a model can act on (strategies may format their own)."""
        if self.error:
            return f"The {self.instrument} instrument failed: {self.error}"
        if self.passed:
            return f"{self.instrument}: passed."
        lines = [f"{self.instrument}: {len(self.defects)} defect(s)."]
        for d in self.defects:
            where = f" at {d.location}" if d.location else ""
            lines.append(f"- [{d.kind}]{where}: {d.message}")
        return "\n".join(lines)


def rank_key(obs: Observation | None) -> tuple[int, float]:
    """Order of goodness of a metric observation: passing first, then partial score.
    Keep-best loops and the selection policies (`tether.strategies.selection`) both rank by it."""
    if obs is None or obs.error is not None:
        return (-1, 0.0)
    goodness = obs.goodness
    return (1 if obs.passed else 0, goodness if goodness is not None else float("-inf"))
