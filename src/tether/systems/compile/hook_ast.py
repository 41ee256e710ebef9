"""The hook AST whitelist (admissibility check 2).

Policy, not the security boundary (the sandboxed worker is that): it keeps hooks to
plain text processing so that a harness stays a readable, reviewable artifact.
- imports only re, math, json, string, difflib, unicodedata, collections, itertools
  (no relative imports);
- none of open, exec, eval, compile, __import__, globals, locals, vars, getattr,
  setattr, delattr, input, breakpoint, as a name or as an attribute (`builtins.eval`);
- no name starting with `__`; no attribute or imported name starting with `_` (a
  module's private names lead to others: `collections._sys.modules["os"]`);
- no attribute that looks names up from text (`attrgetter`, `methodcaller`,
  `Formatter`, `format_map`, `vformat`, `get_field`, `modules`, `builtins`);
- `.format` only on a string literal whose fields name no attribute (`"{0.x}"` is
  attribute access from text); no decorators; no lambda defaults (evaluated once, where
  the reader does not look); no assignment to an imported module's attributes;
- each hook defines its function at top level with the documented signature (two
  positional parameters, nothing else) and does not define another hook's name
  (the hooks share one module).
"""

from __future__ import annotations

import ast
import string
from collections.abc import Mapping

__all__ = ["ALLOWED_IMPORTS", "FORBIDDEN_ATTRIBUTES", "FORBIDDEN_NAMES", "SIGNATURES",
           "check_hook_sources"]

ALLOWED_IMPORTS = frozenset({"re", "math", "json", "string", "difflib", "unicodedata",
                             "collections", "itertools"})
FORBIDDEN_NAMES = frozenset({"open", "exec", "eval", "compile", "__import__", "globals",
                             "locals", "vars", "getattr", "setattr", "delattr", "input",
                             "breakpoint"})
#: attributes that reach names given as text, or the interpreter's own tables
FORBIDDEN_ATTRIBUTES = FORBIDDEN_NAMES | {"attrgetter", "methodcaller", "Formatter",
                                          "format_map", "vformat", "get_field", "modules",
                                          "builtins"}
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
    modules = _imported_names(tree)
    for node in ast.walk(tree):
        found += _extra(node, modules)
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
            found += [(line, f"imported name {a.name!r} (names starting with _ are private)")
                      for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.Name):
            if node.id in FORBIDDEN_NAMES:
                found.append((line, f"use of {node.id!r}"))
            elif node.id.startswith("__"):
                found.append((line, f"name {node.id!r} (names starting with __ are not allowed)"))
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            found.append((line, f"attribute {node.attr!r} (attributes starting with _ "
                                "are not allowed)"))
        elif isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRIBUTES:
            found.append((line, f"attribute {node.attr!r}"))
        elif isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef) \
                and node.name.startswith("__"):
            found.append((line, f"definition of {node.name!r} (starting with __)"))
        elif isinstance(node, ast.arg) and node.arg.startswith("__"):
            found.append((line, f"parameter {node.arg!r} (starting with __)"))
    return found


def _imported_names(tree: ast.AST) -> set[str]:
    """The names the hook's imports bind to modules (or to names from them)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {a.asname or a.name for a in node.names}
    return names


def _extra(node: ast.AST, modules: set[str]) -> list[tuple[int, str]]:
    """The rules on format strings, decorators, lambda defaults and module attributes."""
    line = getattr(node, "lineno", 0)
    out: list[tuple[int, str]] = []
    if isinstance(node, ast.Attribute) and node.attr == "format":
        receiver = node.value
        if not (isinstance(receiver, ast.Constant) and isinstance(receiver.value, str)):
            out.append((line, "'.format' on something other than a string literal"))
        elif _format_reaches_attributes(receiver.value):
            out.append((line, "a format string whose fields read attributes ('{0.name}')"))
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) \
            and node.decorator_list:
        out.append((line, f"decorator on {node.name!r}"))
    if isinstance(node, ast.Lambda) and (node.args.defaults or any(node.args.kw_defaults)):
        out.append((line, "a lambda with default values"))
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
        base = node.value
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name) and base.id in modules:
            out.append((line, f"assignment to an attribute of the imported {base.id!r}"))
    return out


def _format_reaches_attributes(text: str) -> bool:
    """Whether a format string's fields (nested specs included) contain a '.'."""
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return False  # str.format would raise the same ValueError when called
    for _, name, spec, _ in fields:
        if name is not None and "." in name:
            return True
        if spec and "{" in spec and _format_reaches_attributes(spec):
            return True
    return False


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
