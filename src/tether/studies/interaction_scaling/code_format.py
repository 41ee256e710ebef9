"""Loader for the interaction-scaling study's code task files.

A file is a JSON list of objects `{task_id, description, test_code, difficulty,
[common_bugs], [bug_class, buggy_code, fixed_code]}`. `test_code` is a script of
top-level asserts; the study's verdict is "program + newline + test_code exits 0",
which is exactly our "assert" check format, so checks pass through unchanged.

The description is the whole prompt in the study (a bug report with the buggy code
embedded, or a spec); we append one answer-format line so the reply's code block is
unambiguous. The entry point (the name a program must define) is not in the data: it
is the first name the tests call that the buggy code (or the description's code)
defines, else the first non-builtin name the tests call.
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path
from typing import Any

from tether.core import Task
from tether.errors import ConfigError
from tether.suites import is_json_task_list, load_json_task_list, register_format

FORMAT = "interaction-scaling/code"
REQUIRED_KEYS = ("task_id", "description", "test_code")

FIX_INSTRUCTION = (
    "Return the complete corrected code in a single ```python block "
    "(the whole program, not a diff)."
)
IMPLEMENT_INSTRUCTION = "Return the complete implementation in a single ```python block."

_CODE_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.DOTALL)
_TOP_LEVEL_DEF = re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", re.MULTILINE)


def sniff(path: Path) -> bool:
    """True for a JSON list whose objects carry the code task keys."""
    return is_json_task_list(path, lambda t: "test_code" in t)


@register_format(FORMAT, sniff=sniff)
def load_interaction_scaling_code(path: Path) -> list[Task]:
    return load_json_task_list(path, "code", _to_task)


def _to_task(obj: Any, index: int, path: Path) -> Task:
    if not isinstance(obj, dict):
        raise ConfigError(f"{path}: task {index}: expected a JSON object, "
                          f"got {type(obj).__name__}")
    label = f"task {index}" + (f" (id {obj['task_id']!r})" if "task_id" in obj else "")
    for key in REQUIRED_KEYS:
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            raise ConfigError(f"{path}: {label}: key {key!r} must be a non-empty string",
                              hint=f"{FORMAT} tasks need {', '.join(REQUIRED_KEYS)}")
    description: str = obj["description"]
    buggy = obj.get("buggy_code") or _first_code_block(description)
    instruction = FIX_INSTRUCTION if buggy else IMPLEMENT_INSTRUCTION
    task_data: dict[str, Any] = {
        "checks": obj["test_code"],
        "check_format": "assert",
        "entry_point": find_entry_point(obj["test_code"], buggy or description),
        "difficulty": obj.get("difficulty"),
        "kind": "bugfix" if buggy else "spec",
        "common_bugs": list(obj.get("common_bugs") or []),
        "source": str(path),
    }
    if obj.get("bug_class"):
        task_data["bug_class"] = obj["bug_class"]
    if obj.get("buggy_code"):
        task_data["buggy_code"] = obj["buggy_code"]
    if obj.get("fixed_code"):
        task_data["reference_solution"] = obj["fixed_code"]
    return Task(id=obj["task_id"], suite=path.stem, prompt=f"{description.rstrip()}\n\n"
                f"{instruction}", artifact_kind="program", metric="execution", data=task_data)


def _first_code_block(text: str) -> str | None:
    m = _CODE_BLOCK.search(text)
    return m.group(1) if m else None


def find_entry_point(test_code: str, code_or_text: str | None) -> str | None:
    """The name a program must define, as the tests use it (see the module docstring)."""
    defined = _defined_names(code_or_text or "")
    called = _called_names(test_code)
    for name in called:
        if name in defined:
            return name
    if called:
        return called[0]
    return defined[0] if defined else None


def _defined_names(code: str) -> list[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return _TOP_LEVEL_DEF.findall(code)  # prose with code fragments
    return [n.name for n in tree.body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]


def _called_names(test_code: str) -> list[str]:
    """Names called in source order that neither builtins nor the test script bind."""
    try:
        tree = ast.parse(test_code)
    except SyntaxError:
        return []
    bound = _bound_names(tree)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    calls.sort(key=lambda c: (c.lineno, c.col_offset))
    names: list[str] = []
    for c in calls:
        # calls keeps only ast.Call nodes whose func is an ast.Name
        name = c.func.id  # type: ignore[attr-defined]
        if name not in bound and not hasattr(builtins, name) and name not in names:
            names.append(name)
    return names


def _bound_names(tree: ast.Module) -> set[str]:
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
            bound.update(a.arg for a in node.args.args) if not isinstance(
                node, ast.ClassDef) else None
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Lambda):
            bound.update(a.arg for a in node.args.args)
    return bound
