"""The run report: numbers from a run store, plots, HTML pages, `tether report`.

The exports load on first use (PEP 562): the plots pull in matplotlib and scipy, which a
command that only imports `tether.report.fmt` (or `tether --help`) must not pay for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tether.report.data import Report, build_report
    from tether.report.html import write_report

__all__ = ["Report", "build_report", "write_report"]
_HOME = {"Report": "tether.report.data", "build_report": "tether.report.data",
         "write_report": "tether.report.html"}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(_HOME[name]), name)
    raise AttributeError(f"module 'tether.report' has no attribute {name!r}")
