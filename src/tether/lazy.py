"""Lazy package faces (PEP 562).

Each package's `__init__` exports what other packages use, but importing a package must
not import all of it: `tether --help` must load neither pydantic nor numpy, and a command
pays only for the modules it runs. A face lists each exported name's home module and
imports it on first use; the same names are imported under `TYPE_CHECKING` so that type
checkers and readers see where each one lives (tests/test_public_faces.py keeps the two
lists equal).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def exports(package: str, homes: Mapping[str, str]
            ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for the package `package`, whose exported names live
    in the modules `homes` gives (name -> module)."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[package], name, value)  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(homes) | set(vars(sys.modules[package])))

    return __getattr__, __dir__
