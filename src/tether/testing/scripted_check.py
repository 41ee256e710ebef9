"""`scripted_check`: a test instrument, for exercising runners without a sandbox.

It passes when the artifact contains the task's `data["expect"]` string. It is a
test double (it observes nothing a real user cares about) and says so in its name.
"""

from __future__ import annotations

import time
from typing import ClassVar

from pydantic import Field

from tether import params
from tether.core import Artifact, Defect, Observation, Task
from tether.instruments import InstrumentEnv, register_instrument


@register_instrument("scripted_check")
class ScriptedCheckInstrument:
    name: ClassVar[str] = "scripted_check"
    version: ClassVar[str] = "1"
    grounded: ClassVar[bool] = True

    class Params(params.Params):
        fail_with: str | None = Field(None, description="raise this error instead "
                                                        "(a failing instrument, for tests)")
        delay_s: float = Field(0.0, ge=0, allow_inf_nan=False,
                               description="sleep this long first (a slow instrument)")

    def __init__(self, params: Params | None = None) -> None:
        # fail_with simulates an instrument failure (for invariant-6 tests); delay_s a
        # slow instrument, so runner tests can interrupt a run while trials are in flight.
        self.params = params if params is not None else self.Params()

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        if self.params.delay_s:
            time.sleep(self.params.delay_s)
        if self.params.fail_with:
            raise RuntimeError(self.params.fail_with)
        expect = str(task.data.get("expect", ""))
        passed = expect in artifact.text
        defects = [] if passed else [Defect(kind="missing", message=f"expected {expect!r}")]
        return Observation(instrument=self.name, version=self.version, grounded=True,
                           score=1.0 if passed else 0.0, passed=passed, defects=defects)
