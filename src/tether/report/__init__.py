"""The run report: numbers from a run store, plots, HTML pages, `tether report`.

The exports load on first use (PEP 562): the plots pull in matplotlib and scipy, which a
command that only imports `tether.report.formatting` (or `tether --help`) must not pay for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.report.baseline import (
        baseline_key as baseline_key,
        subset_baseline as subset_baseline,
    )
    from tether.report.data import Report as Report, build_report as build_report
    from tether.report.figure import plt as plt, save as save
    from tether.report.formatting import (
        effect as effect,
        fmt as fmt,
        pvalue as pvalue,
        score as score,
    )
    from tether.report.html import write_report as write_report
    from tether.report.jinja import environment as environment
    from tether.report.section import (
        Section as Section,
        SectionInput as SectionInput,
        TrialEntry as TrialEntry,
        register_section as register_section,
        validated as validated,
    )
    from tether.report.values import arm_budget_groups as arm_budget_groups

_HOMES: dict[str, str] = {
    "Report": "tether.report.data",
    "Section": "tether.report.section",
    "SectionInput": "tether.report.section",
    "TrialEntry": "tether.report.section",
    "arm_budget_groups": "tether.report.values",
    "baseline_key": "tether.report.baseline",
    "build_report": "tether.report.data",
    "effect": "tether.report.formatting",
    "environment": "tether.report.jinja",
    "fmt": "tether.report.formatting",
    "plt": "tether.report.figure",
    "pvalue": "tether.report.formatting",
    "register_section": "tether.report.section",
    "save": "tether.report.figure",
    "score": "tether.report.formatting",
    "subset_baseline": "tether.report.baseline",
    "validated": "tether.report.section",
    "write_report": "tether.report.html",
}
__all__ = [
    "Report",
    "Section",
    "SectionInput",
    "TrialEntry",
    "arm_budget_groups",
    "baseline_key",
    "build_report",
    "effect",
    "environment",
    "fmt",
    "plt",
    "pvalue",
    "register_section",
    "save",
    "score",
    "subset_baseline",
    "validated",
    "write_report",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
