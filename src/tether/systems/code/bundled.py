"""tether's own code suite (`code`), written for this project.

Each task is one JSON file in `data/code/` (`NN_name.json`, loaded in file-name order:
the first five are the easiest, so a tiny model can pass some of `code[:5]`). The file
is a `CodeTaskSpec`: the prompt is assembled here from its parts, so the buggy code a
bug report shows *is* the task's wrong solution and the examples it shows *are* its
visible checks (a subset of the hidden checks), with no copy that could drift.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tether.core import Task
from tether.suites import read_json_file, register_suite, validate_entry

SUITE = "code"
DATA_DIR = "data"

FIX_INSTRUCTION = "Return the complete corrected code in a single ```python block."
SPEC_INSTRUCTION = (
    "Return the complete implementation of `{entry_point}` in a single ```python block "
    "(no example usage, no input() or print())."
)


class CodeTaskSpec(BaseModel):
    """One bundled code task as authored (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    kind: Literal["bugfix", "spec"]
    difficulty: Literal["easy", "moderate", "hard"]
    entry_point: str = Field(min_length=1)
    prompt: str = Field(min_length=1, description="the bug report or the spec, no code")
    checks: str = Field(min_length=1, description="hidden top-level asserts")
    visible_checks: str = Field(min_length=1, description="asserts shown in the prompt")
    reference_solution: str = Field(min_length=1)
    wrong_solution: str = Field(min_length=1, description="for bugfix: the code shown")
    timeout_s: float = Field(default=30.0, gt=0)

    def to_task(self) -> Task:
        parts = [self.prompt.strip()]
        if self.kind == "bugfix":
            parts.append("Here is the current code:\n\n"
                         f"```python\n{self.wrong_solution.strip()}\n```")
        parts.append(f"For example, these checks must pass:\n\n```python\n"
                     f"{self.visible_checks.strip()}\n```")
        parts.append(FIX_INSTRUCTION if self.kind == "bugfix"
                     else SPEC_INSTRUCTION.format(entry_point=self.entry_point))
        data = {
            "checks": self.checks,
            "check_format": "assert",
            "entry_point": self.entry_point,
            "visible_checks": self.visible_checks,
            "timeout_s": self.timeout_s,
            "reference_solution": self.reference_solution,
            "wrong_solution": self.wrong_solution,
            "kind": self.kind,
            "difficulty": self.difficulty,
        }
        if self.kind == "bugfix":
            data["buggy_code"] = self.wrong_solution
        return Task(id=self.id, suite=SUITE, prompt="\n\n".join(parts), artifact_kind="program",
                    metric="execution", data=data)


def task_files() -> list[Path]:
    """The bundled task files, in suite order."""
    root = resources.files("tether.systems.code").joinpath(DATA_DIR)
    return sorted((Path(str(p)) for p in root.iterdir() if p.name.endswith(".json")),
                  key=lambda p: p.name)


def load_spec_file(path: Path) -> CodeTaskSpec:
    return validate_entry(read_json_file(path), path, "task", model=CodeTaskSpec)


@register_suite(SUITE)
def load_code_suite() -> list[Task]:
    return [load_spec_file(p).to_task() for p in task_files()]
