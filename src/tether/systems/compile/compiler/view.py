"""What the summary and the report read of a compile, whichever layout holds it.

A compile's run directory (compiler/run.py) and a build directory an earlier tether
wrote (compiler/legacy.py) both answer these questions, so `tether compile --json`,
`tether report` and a resumed compile's summary read either the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from tether.systems.compile.compiler.scoring import SplitScore

__all__ = ["BuildView", "CompileView"]


class BuildView(Protocol):
    """One build's records."""

    def selected(self) -> dict[str, Any] | None: ...

    def test(self) -> dict[str, Any] | None: ...

    def rounds(self) -> list[dict[str, Any]]: ...

    def teacher_calls(self) -> list[dict[str, Any]]: ...

    def oneshot(self) -> dict[str, Any] | None: ...

    def gepa(self) -> dict[str, Any] | None: ...


class CompileView(Protocol):
    """A compile: its config, builds, scores, student calls and result."""

    root: Path

    def config(self) -> dict[str, Any] | None: ...

    def result(self) -> dict[str, Any] | None: ...

    def build(self, index: int) -> BuildView: ...

    def build_indices(self) -> list[int]: ...

    def split_score(self, split: str, key: str) -> SplitScore | None: ...

    def student_calls(self) -> list[dict[str, Any]]: ...

    def records_student_calls(self) -> bool: ...
