"""The code system: execution and static instruments, code suites (bundled, HumanEval, JSONL rows).

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.systems.code.execution import ExecutionInstrument as ExecutionInstrument
    from tether.systems.code.sandboxed_python import (
        STUDY_TIMEOUT_S as STUDY_TIMEOUT_S,
        run_whole_script as run_whole_script,
    )

_HOMES: dict[str, str] = {
    "ExecutionInstrument": "tether.systems.code.execution",
    "STUDY_TIMEOUT_S": "tether.systems.code.sandboxed_python",
    "run_whole_script": "tether.systems.code.sandboxed_python",
}
__all__ = [
    "ExecutionInstrument",
    "STUDY_TIMEOUT_S",
    "run_whole_script",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
