"""Scripted test doubles for HumanEval runs (`scripted:tests.systems.code.humaneval_doubles:NAME`):
a proposer answering each problem's reference solution, or only its body, or only the
function itself (the prompt's imports and helpers left out), or an empty body.
They read the problem from the prompt the task shows; nothing here is a model."""

from __future__ import annotations

import ast
from functools import cache

from tether.models.base import text_of
from tether.systems.code.humaneval import bundled_file, load_humaneval_file


@cache
def _problems() -> dict[str, tuple[str, str]]:
    """prompt text shown to the model -> (completion prefix, reference program)."""
    return {t.prompt: (t.data["completion_prefix"], t.data["reference_solution"])
            for t in load_humaneval_file(bundled_file(), suite="humaneval")}


def _problem(messages: list) -> tuple[str, str]:
    shown = text_of(messages[-1])
    for prompt, problem in _problems().items():
        if prompt in shown:
            return problem
    raise KeyError("not a HumanEval prompt")


def reference(messages: list, info: object) -> str:
    return f"```python\n{_problem(messages)[1]}\n```"


def body_only(messages: list, info: object) -> str:
    prefix, program = _problem(messages)
    return f"```python\n{program[len(prefix):]}\n```"


def empty_body(messages: list, info: object) -> str:
    return "```python\n    pass\n```"


def function_of(program: str, entry_point: str) -> str:
    """The source of `entry_point`'s definition alone: a full-function reply that omits
    the imports and helpers the prompt put before it."""
    tree = ast.parse(program)
    (node,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry_point]
    return ast.get_source_segment(program, node) + "\n"


def function_only(messages: list, info: object) -> str:
    prefix, program = _problem(messages)
    entry = next(n.name for n in reversed(ast.parse(prefix).body)
                 if isinstance(n, ast.FunctionDef))
    return f"```python\n{function_of(program, entry)}```"
