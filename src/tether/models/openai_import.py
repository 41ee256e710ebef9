"""`import openai` without defining every request and response type the SDK has.

The SDK's `openai.types` package, and each package under it (`openai.types.chat`,
`openai.types.responses`, ...), re-exports every model of its submodules from its
`__init__`, and `openai` imports `openai.types`: importing the SDK defines some 500
modules of pydantic models (0.7 s of a process's start on a 2-core machine, most of the
time before a `tether run` or `tether compile` sends its first call), of which a chat
completion uses about thirty.

`import_openai()` imports the SDK with each of those packages made lazy (PEP 562): the
package module exists with its path, so its submodules import as usual, and its
`__init__`'s re-exports are read from its source; a re-exported name is imported from
its submodule when something first reads it (`openai.types.ChatModel`, `from
openai.types.chat import ChatCompletion`). The objects are the ones the eager import
makes, from the same modules: only when each module runs changes. Measured: the import
takes 0.30-0.33 s instead of 0.68-0.72 s, and 130 of the SDK's modules are loaded instead
of 536.

Only a package whose `__init__` is nothing but relative `from .module import Name as
Name` lines (a docstring and `from __future__` allowed) is made lazy; any other runs as
written, so an SDK release that adds code there is imported as its authors wrote it. The
finder is in place only while `import_openai` imports the SDK (a type package first
imported later is eager); an SDK some other code imported first is used as it is.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Sequence
from types import ModuleType
from typing import Any

__all__ = ["LAZY_PACKAGES", "import_openai", "reexports"]

#: the packages made lazy: this one and the packages under it
LAZY_PACKAGES = "openai.types"

_lock = threading.Lock()


def reexports(source: str) -> dict[str, tuple[str, str]] | None:
    """The names a package's `__init__` source re-exports, each mapped to (submodule,
    name in it); None when the source does anything else (it is then run as written)."""
    names: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring
        if not (isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
                and all(alias.name != "*" for alias in node.names)):
            return None
        for alias in node.names:
            names[alias.asname or alias.name] = (node.module, alias.name)
    return names


class _OnFirstRead(importlib.abc.Loader):
    """Makes a package whose re-exports are imported when first read."""

    def __init__(self, names: dict[str, tuple[str, str]]) -> None:
        self.names = names

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default module, with the spec's path

    def exec_module(self, module: ModuleType) -> None:
        names, package = self.names, module.__name__

        def __getattr__(name: str) -> Any:
            if name in names:
                submodule, original = names[name]
                value = getattr(importlib.import_module(f"{package}.{submodule}"), original)
            else:  # a submodule nobody imported yet, as the eager package also answers
                try:
                    value = importlib.import_module(f"{package}.{name}")
                except ModuleNotFoundError as exc:
                    if exc.name != f"{package}.{name}":
                        raise
                    raise AttributeError(
                        f"module {package!r} has no attribute {name!r}") from None
            setattr(module, name, value)
            return value

        def __dir__() -> list[str]:
            return sorted(set(module.__dict__) | set(names))

        module.__getattr__ = __getattr__  # type: ignore[method-assign]
        module.__dir__ = __dir__  # type: ignore[method-assign]
        module.__dict__["__all__"] = sorted(names)  # `from ... import *` as the eager one


class _LazyTypesFinder(importlib.abc.MetaPathFinder):
    """Finds LAZY_PACKAGES and the packages under it as the other finders do, and has a
    package whose `__init__` only re-exports made by `_OnFirstRead`."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != LAZY_PACKAGES and not fullname.startswith(LAZY_PACKAGES + "."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.submodule_search_locations is None:
            return spec  # not found here, or a plain module: as it is
        get_source = getattr(spec.loader, "get_source", None)
        source = get_source(fullname) if get_source is not None else None
        names = reexports(source) if source else None
        if names is not None:
            spec.loader = _OnFirstRead(names)
        return spec


def import_openai() -> ModuleType:
    """The `openai` module, imported with its type packages made lazy (the module
    docstring) unless something imported it already."""
    if "openai" in sys.modules:
        return importlib.import_module("openai")
    with _lock:
        finder = _LazyTypesFinder()
        sys.meta_path.insert(0, finder)
        try:
            return importlib.import_module("openai")
        finally:
            sys.meta_path.remove(finder)
