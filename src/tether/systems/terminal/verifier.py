"""`terminal_verifier`: a terminal task's hidden tests over the agent's final /app.

The artifact of a terminal attempt is the shell transcript (kind "shell"); what is
judged is the state it left behind, whose host path the strategy puts in
`artifact.meta["app_dir"]` (and, on an image, the attempt's system layer in
`artifact.meta["system_dir"]`). The verifier runs `bash /tests/test.sh` in a fresh
sandbox over a copy of that directory and the attempt's system, read-only (see
`tether.systems.terminal.environment.run_verifier`).

score = the reward; passed = reward >= 1. A verifier that writes no reward, times
out, or whose sandbox fails is an error observation (no score): an agent error, never
a wrong submission (invariant 6).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic import Field

from tether import params
from tether.core import Artifact, Defect, Observation, Task
from tether.instruments import InstrumentEnv, register_instrument
from tether.systems.terminal.environment import run_verifier
from tether.systems.terminal.spec import TerminalSpec


@register_instrument("terminal_verifier")
class TerminalVerifier:
    name: ClassVar[str] = "terminal_verifier"
    version: ClassVar[str] = "1"
    grounded: ClassVar[bool] = True

    class Params(params.Params):
        output_chars: params.Count = Field(4000, description="verifier output kept in the "
                                                             "observation")

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()

    def _obs(self, **kw: object) -> Observation:
        # kw are Observation's own fields, passed through unchanged
        return Observation(instrument=self.name, version=self.version, grounded=True, **kw)

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        spec = TerminalSpec.from_task(task)
        app_dir = artifact.meta.get("app_dir")
        if not app_dir or not Path(str(app_dir)).is_dir():
            return self._obs(error=f"no final /app to verify (artifact meta app_dir={app_dir!r})")
        system_dir = artifact.meta.get("system_dir")
        if system_dir and not Path(str(system_dir)).is_dir():
            return self._obs(error=f"the attempt's system is gone (artifact meta "
                                   f"system_dir={system_dir!r})")
        result = run_verifier(spec, Path(str(app_dir)), sandbox=env.sandbox,
                              output_chars=self.params.output_chars,
                              system_dir=Path(str(system_dir)) if system_dir else None)
        raw = {"output": result.output, "error_kind": result.error_kind,
               "verifier_s": round(result.duration_s, 3)}
        if result.error is not None:
            return self._obs(error=result.error, raw=raw, duration_s=result.duration_s)
        passed = bool(result.passed)
        defects = [] if passed else [Defect(
            kind="verifier_failed", message=f"hidden tests gave reward {result.reward:g}",
            evidence={"output_tail": result.output[-1500:]})]
        return self._obs(score=result.reward, passed=passed, defects=defects, raw=raw,
                         duration_s=result.duration_s)
