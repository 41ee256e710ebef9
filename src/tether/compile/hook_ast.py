"""The hook AST whitelist (admissibility check 2).

Policy, not the security boundary (the sandboxed worker is that): it keeps hooks to
plain text processing so that a harness stays a readable, reviewable artifact.
- imports only re, math, json, string, difflib, unicodedata, collections, itertools
  (no relative imports);
- none of open, exec, eval, compile, __import__, globals, locals, vars, getattr,
  setattr, input, breakpoint;
- no name, attribute or imported name starting with `__`;
- each hook defines its function at top level with the documented signature (two
  positional parameters, nothing else) and does not define another hook's name
  (the hooks share one module).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

__all__ = ["ALLOWED_IMPORTS", "FORBIDDEN_NAMES", "SIGNATURES", "check_hook_sources"]

ALLOWED_IMPORTS = frozenset({"re", "math", "json", "string", "difflib", "unicodedata",
                             "collections", "itertools"})
FORBIDDEN_NAMES = frozenset({"open", "exec", "eval", "compile", "__import__", "globals",
                             "locals", "vars", "getattr", "setattr", "input", "breakpoint"})
#: hook name -> its documented parameters
SIGNATURES: Mapping[str, tuple[str, str]] = {
    "route": ("obs", "state"), "parse": ("text", "item"), "select_lines": ("card", "question")}


def check_hook_sources(hooks: Mapping[str, str]) -> list[str]:
    """One line per violation, over all hooks (empty: the hooks pass)."""
    out: list[str] = []
    for hook, source in sorted(hooks.items()):
        try:
            tree = ast.parse(source, filename=f"hooks.{hook}")
        except SyntaxError as exc:
            out.append(f"hooks.{hook} line {exc.lineno}: syntax error: {exc.msg}")
            continue
        out += [f"hooks.{hook} line {line}: {what}" for line, what in _walk(tree)]
        out += [f"hooks.{hook}: {what}" for what in _signature(hook, tree)]
    return out


def _walk(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in ALLOWED_IMPORTS:
                    found.append((line, f"import of {alias.name!r} (allowed: "
                                        f"{', '.join(sorted(ALLOWED_IMPORTS))})"))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or module.split(".")[0] not in ALLOWED_IMPORTS:
                found.append((line, f"import from {('.' * node.level + module)!r} (allowed: "
                                    f"{', '.join(sorted(ALLOWED_IMPORTS))})"))
            found += [(line, f"imported name {a.name!r}") for a in node.names
                      if a.name.startswith("__")]
        elif isinstance(node, ast.Name):
            if node.id in FORBIDDEN_NAMES:
                found.append((line, f"use of {node.id!r}"))
            elif node.id.startswith("__"):
                found.append((line, f"name {node.id!r} (names starting with __ are not allowed)"))
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__"):
            found.append((line, f"attribute {node.attr!r} (starting with __)"))
        elif isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef) \
                and node.name.startswith("__"):
            found.append((line, f"definition of {node.name!r} (starting with __)"))
        elif isinstance(node, ast.arg) and node.arg.startswith("__"):
            found.append((line, f"parameter {node.arg!r} (starting with __)"))
    return found


def _signature(hook: str, tree: ast.Module) -> list[str]:
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    out = [f"defines {other!r}, which is another hook's name" for other in SIGNATURES
           if other != hook and other in defs]
    params = SIGNATURES[hook]
    expected = f"def {hook}({', '.join(params)})"
    node = defs.get(hook)
    if node is None:
        return [*out, f"no top-level {expected}"]
    args = node.args
    if isinstance(node, ast.AsyncFunctionDef) or args.vararg or args.kwarg or args.kwonlyargs \
            or args.posonlyargs or len(args.args) != len(params) or args.defaults:
        out.append(f"{hook} must be {expected}")
    return out
