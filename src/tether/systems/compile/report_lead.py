"""The first sentences of a compile's report: the answer the compile was run for.

A compile scores every split (probe, validation, test) as trials, so the report's generic
first screen, the first arm against the baseline over all its trials, mixes them and may
name a harness that was not selected. These sentences say instead what was selected and
how it scored on the test split against the bare student, from the numbers of the
section's own test table (`report.BuildsSection`): scores in points (100 x the metric's
mean) with their 95% intervals, and the paired test of that table.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compile_lead"]


def _points(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _scored(arm: dict[str, Any]) -> str:
    return (f"{_points(arm.get('mean'))} [{_points(arm.get('low'))}, "
            f"{_points(arm.get('high'))}]")


def compile_lead(compiles: list[dict[str, Any]]) -> str | None:
    """The first sentences of a compile's report, in points (100 x the metric's mean):
    the selected harness on test against the bare student, with the intervals and the
    paired test of the section's test table; for a compile of several builds, their
    means. None when the run holds several compiles (each has its own section) or no
    test score of the bare student."""
    if len(compiles) != 1:
        return None
    hc = compiles[0]
    builds = hc.get("builds") or []
    tail = (" The arms table below pools every split the compile scored (probe, "
            "validation, test); the test split alone is under Harness compilation.")
    if len(builds) > 1:
        mean = (hc.get("across") or {}).get("mean") or {}
        if mean.get("selected") is None:
            return None
        return (f"Harness compilation, {len(builds)} builds: the selected harnesses score "
                f"{_points(mean['selected'])} on test against the bare student's "
                f"{_points(mean.get('bare'))} (means over the builds)." + tail)
    if not builds:
        return None
    build = builds[0]
    arms = {a["arm"]: a for a in build.get("arms") or []}
    bare, chosen = arms.get("bare") or {}, arms.get("selected") or {}
    if bare.get("mean") is None:
        return None
    if build.get("selected_is_bare"):
        return ("Harness compilation: no harness beat the bare student on validation, so "
                f"the bare student is selected: {_scored(bare)} on the {bare.get('n')} test "
                "items." + tail)
    name = str(build.get("selected_hash") or "")[:12]
    if chosen.get("mean") is None:
        return (f"Harness compilation: harness {name} was selected on validation but has no "
                f"test score (stopped: {build.get('stopped')}); the bare student scores "
                f"{_scored(bare)} on test." + tail)
    vs = chosen.get("vs_bare") or {}
    paired = "" if not vs else (
        f": {vs['delta']:+.1f} points [{vs['low']:+.1f}, {vs['high']:+.1f}], "
        f"{'sign test' if hc.get('graded') else 'McNemar'} p = {vs['p_value']:.2g}")
    return (f"Harness compilation: the selected harness {name} scores {_scored(chosen)} on "
            f"the {chosen.get('n')} test items against the bare student's {_scored(bare)}"
            f"{paired}." + tail)
