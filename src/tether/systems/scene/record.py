"""Records of executed scene programs and the refiner's contract (VETR, the paper's z).

A record z = (program, render, state, trace) is a program with the Execution it produced
from the task's base. The host loop (Algorithm 2) keeps the previous delivered record z-
and the initial one z0 (the observed start program); every submitted program goes through
a Refiner, which returns what is delivered for it. "Refiner off" is the identity refiner
(raw if it executed with a readable render, else the previous record); the paper's
Algorithm 1 is another Refiner. Both live behind this one signature so the loop, its
ablations and `tether scene refine` share it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from tether.systems.scene.executor import Execution, RenderSettings, SceneExecutor

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class SceneRecord:
    """A program and what executing it afresh from the base produced."""

    program: str
    execution: Execution

    @property
    def rendered(self) -> bool:
        """Executed and produced a readable render (the loop can deliver it)."""
        return bool(self.execution.ok and self.execution.render_png)


@dataclass(frozen=True)
class Refinement:
    """What a refiner delivered for one submitted program.

    accepted: the name of the accepted alternative, or "raw" (the raw execution was
    delivered), "previous" (the previous delivered record was reused, with its own
    program and render), or "none" (nothing could be delivered).
    executions: executions spent beyond the raw one (the paper caps them at 6).
    """

    raw: SceneRecord
    delivered: SceneRecord | None
    accepted: str
    executions: int = 0
    checks: dict[str, Any] = field(default_factory=dict)  # the contract's checks and values
    tried: list[dict[str, Any]] = field(default_factory=list)  # per alternative: outcome
    #: which projections were eligible ("paper" | "keep_other_writes"); None: no refiner
    projection_scope: str | None = None


class Refiner(Protocol):
    def __call__(
        self,
        program: str,
        *,
        executor: SceneExecutor,
        previous: SceneRecord,
        initial: SceneRecord,
        render: RenderSettings,
        base: Path | None = None,
    ) -> Refinement: ...


def refiner_off(
    program: str,
    *,
    executor: SceneExecutor,
    previous: SceneRecord,
    initial: SceneRecord,
    render: RenderSettings,
    base: Path | None = None,
) -> Refinement:
    """The ablation without a refiner: deliver the raw execution if it rendered."""
    raw = SceneRecord(program, executor.execute(program, render=render, base=base))
    if raw.rendered:
        return Refinement(raw=raw, delivered=raw, accepted="raw")
    return Refinement(raw=raw, delivered=previous, accepted="previous")
