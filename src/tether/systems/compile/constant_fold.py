"""Constant folding of hook source for the hard-coded-answer audit.

An answer hidden in an expression of constants (`"siraP"[::-1]`, `"Par" + "is"`,
`"".join(["Pa", "ris"])`, `'R-' + str(23550 + 1)`, `chr(80) + ...`) is as hard-coded as
a literal. `folded_values(source)` evaluates, without running anything, every
expression built only from constants, names bound once to such an expression, and a
fixed set of pure operations:

- `+ - * // % **` and unary `-`/`+` on numbers; `+`, `*` (by a small int) and `%`
  formatting on strings; indexing and slicing with constant bounds;
- f-strings without format specs; list and tuple displays;
- `str int float chr reversed sorted list tuple` and the string methods `upper lower
  title capitalize casefold swapcase strip lstrip rstrip replace join format`.

Every intermediate value is bounded (strings 10,000 characters, integers 10**100,
small exponents and repeat counts) so a hostile expression cannot exhaust the host.
What folding cannot see (an answer computed by a loop, decoded from numbers by a
function, read from a file) is outside this audit; the sandbox bounds what hooks do,
and the test-split audit after the freeze reads what the frozen harness says.
"""

from __future__ import annotations

import ast
import operator
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

__all__ = ["folded_values"]

MAX_STR = 10_000
MAX_INT = 10**100
MAX_REPEAT = 1_000
MAX_EXPONENT = 64

_FAIL = object()  # "not a constant expression"
_NUM_OPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.Div: operator.truediv}
_STR_METHODS = frozenset({"upper", "lower", "title", "capitalize", "casefold", "swapcase",
                          "strip", "lstrip", "rstrip", "replace", "join", "format"})
# A width or precision of 4+ digits in %-formatting or str.format could build huge text.
_WIDE = re.compile(r"\d{4,}")


def folded_values(source: str) -> list[tuple[int, str]]:
    """(line, text) for every constant string and every foldable expression's value
    (numbers as their str()); [] for source that does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    folder = _Folder(tree)
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.expr) or isinstance(node, ast.Name):
            continue  # a name's value is reported where it is bound
        value = folder.fold(node)
        out += [(node.lineno, text) for text in _texts(value)]
    return list(dict.fromkeys(out))


def _texts(value: Any) -> list[str]:
    if value is _FAIL or isinstance(value, bool) or value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, int | float):
        return [str(value)]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _texts(v)]
    return []


class _Folder:
    def __init__(self, tree: ast.AST) -> None:
        self.cache: dict[int, Any] = {}
        # Names bound exactly once, by a plain `name = expr`: their value is that expr's.
        stores = Counter(n.id for n in ast.walk(tree)
                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del))
        stores.update(a.arg for a in ast.walk(tree) if isinstance(a, ast.arg))
        self.bound: dict[str, ast.expr] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name) \
                    and stores[node.targets[0].id] == 1:
                self.bound[node.targets[0].id] = node.value
        self.resolving: set[str] = set()

    def fold(self, node: ast.expr) -> Any:
        key = id(node)
        if key not in self.cache:
            self.cache[key] = _FAIL  # a cycle (x = x + 1 bound once) folds to nothing
            try:
                value = self._fold(node)
            except (ArithmeticError, ValueError, TypeError, IndexError, KeyError,
                    AttributeError, OverflowError, RecursionError):
                value = _FAIL
            self.cache[key] = _bounded(value)
        return self.cache[key]

    def _fold(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str | int | float) else _FAIL
        if isinstance(node, ast.Name):
            bound = self.bound.get(node.id)
            if bound is None or node.id in self.resolving:
                return _FAIL
            self.resolving.add(node.id)
            try:
                return self.fold(bound)
            finally:
                self.resolving.discard(node.id)
        if isinstance(node, ast.List | ast.Tuple):
            items = [self.fold(e) for e in node.elts]
            if any(i is _FAIL for i in items):
                return _FAIL
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            v = self.fold(node.operand)
            if _number(v):
                return -v if isinstance(node.op, ast.USub) else v
            return _FAIL
        if isinstance(node, ast.BinOp):
            return self._binop(node.op, self.fold(node.left), self.fold(node.right))
        if isinstance(node, ast.Subscript):
            return self._subscript(node)
        if isinstance(node, ast.JoinedStr):
            return self._fstring(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        return _FAIL

    def _binop(self, op: ast.operator, a: Any, b: Any) -> Any:
        if a is _FAIL or b is _FAIL:
            return _FAIL
        if _number(a) and _number(b):
            if isinstance(op, ast.Pow) and (abs(b) > MAX_EXPONENT or abs(a) > MAX_INT):
                return _FAIL
            fn = _NUM_OPS.get(type(op))
            return fn(a, b) if fn is not None else _FAIL
        if isinstance(op, ast.Add) and type(a) is type(b) and isinstance(a, str | list | tuple):
            return a + b
        if isinstance(op, ast.Mult) and isinstance(a, str) and isinstance(b, int) \
                and not isinstance(b, bool) and 0 <= b <= MAX_REPEAT:
            return a * b
        if isinstance(op, ast.Mod) and isinstance(a, str) and not _WIDE.search(a) \
                and "*" not in a:
            return a % (tuple(b) if isinstance(b, list) else b)
        return _FAIL

    def _subscript(self, node: ast.Subscript) -> Any:
        value = self.fold(node.value)
        if not isinstance(value, str | list | tuple):
            return _FAIL
        index = node.slice
        if isinstance(index, ast.Slice):
            parts = [None if p is None else self.fold(p)
                     for p in (index.lower, index.upper, index.step)]
            if any(p is _FAIL or (p is not None and not isinstance(p, int)) for p in parts):
                return _FAIL
            return value[slice(*parts)]
        i = self.fold(index)
        return value[i] if isinstance(i, int) and not isinstance(i, bool) else _FAIL

    def _fstring(self, node: ast.JoinedStr) -> Any:
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
                continue
            if not isinstance(part, ast.FormattedValue) or part.format_spec is not None:
                return _FAIL
            v = self.fold(part.value)
            if v is _FAIL:
                return _FAIL
            convs: dict[int, Callable[[object], str]] = {-1: str, 115: str, 114: repr, 97: ascii}
            conv = convs.get(part.conversion, str)
            out.append(conv(v))
        return "".join(out)

    def _call(self, node: ast.Call) -> Any:
        if node.keywords:
            return _FAIL
        args = [self.fold(a) for a in node.args]
        if any(a is _FAIL for a in args):
            return _FAIL
        func = node.func
        if isinstance(func, ast.Name):
            return _builtin(func.id, args)
        if isinstance(func, ast.Attribute) and func.attr in _STR_METHODS:
            target = self.fold(func.value)
            if not isinstance(target, str):
                return _FAIL
            if func.attr == "join":
                seq = args[0] if len(args) == 1 else _FAIL
                if not isinstance(seq, list | tuple) or not all(isinstance(s, str) for s in seq) \
                        or len(target) * len(seq) > MAX_STR:
                    return _FAIL
                return target.join(seq)
            if func.attr == "format" and ("{0." in target or _WIDE.search(target)
                                          or re.search(r"\{[^}]*[.\[!:]", target)):
                return _FAIL  # attribute/index access or wide specs: not folded
            if func.attr == "replace" and len(args) == 2 and isinstance(args[1], str) \
                    and len(args[1]) * max(len(target), 1) > MAX_STR:
                return _FAIL
            return getattr(target, func.attr)(*args)
        return _FAIL


def _builtin(name: str, args: list[Any]) -> Any:
    if name == "str" and len(args) == 1 and isinstance(args[0], str | int | float):
        return str(args[0])
    if name == "int" and len(args) == 1 and (_number(args[0]) or (
            isinstance(args[0], str) and len(args[0]) <= 100)):
        return int(args[0])
    if name == "float" and len(args) == 1 and isinstance(args[0], str | int | float):
        return float(args[0])
    if name == "chr" and len(args) == 1 and isinstance(args[0], int):
        return chr(args[0])
    if name in ("reversed", "sorted", "list", "tuple") and len(args) == 1 \
            and isinstance(args[0], str | list | tuple):
        seq = list(args[0])
        if name == "reversed":
            seq.reverse()
        elif name == "sorted":
            seq.sort()
        return tuple(seq) if name == "tuple" else seq
    return _FAIL


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _bounded(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_STR:
        return _FAIL
    if isinstance(value, int) and abs(value) > MAX_INT:
        return _FAIL
    if isinstance(value, list | tuple) and (
            len(value) > MAX_REPEAT or sum(len(v) for v in value if isinstance(v, str)) > MAX_STR):
        return _FAIL
    return value
