"""Where the default and reference profiles disagree on an artifact, and why.

Both profiles measure the same HTML; for every kind and viewport/frame whose
defects differ, each reference-only or default-only defect is explained by the rule
that separates them (a clipping ancestor, inherited opacity, glyph vs element boxes,
counting once per group, the root hiding overflow, ...). The reasons are counted,
so a listing over many artifacts says which fixes matter.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether.systems.pages.geometry.browser import BrowserHost, get_browser_host
from tether.systems.pages.geometry.measure import (
    PROBE_TIMEOUT_S,
    Measurement,
    ProbeRun,
    measure_html,
)
from tether.systems.pages.geometry.profiles import get_profile

WHY = {
    "invisible": "invisible through an ancestor's opacity/visibility (reference: own style only)",
    "clipped": "hidden by an overflow-clipping ancestor (reference ignores clipping)",
    "grouped": "counted once per group of overlapping texts (reference: once per pair)",
    "glyph_overlap": "glyph boxes do not overlap by 6 px (the element boxes did)",
    "outermost": "counted once with its outermost out-of-bounds ancestor",
    "glyph_inside": "glyph boxes stay inside (the element box crossed the edge)",
    "page_container": "its container is the page itself (out_of_bounds counts it)",
    "glyph_fit": "glyph boxes fit the container (the element box did not)",
    "placed": "text placed out of flow (absolute/fixed) on purpose, not overflowing",
    "own_box": "text wider than its own fixed-size box (reference does not check)",
    "cut": "text cut by a clipping ancestor (reference does not check)",
    "glyph_past": "glyph boxes extend past the container (the element box did not)",
    "default_only": "found only by the default rules (glyph boxes, painted boxes, "
                    "text wholly off the canvas)",
    "root_hides": "the root hides overflow, so no scrollbar is shown",
    "cards": "cards grouped per parent, order-independent clustering, shared cards once",
    "network": "blocked network request (reference does not count network use)",
    "navigation": "blocked navigation away from the page (reference does not count it)",
    "missing": "local resource missing from the page's folder (reference does not count it)",
    "timing": "frames at controlled time (reference: wall-clock waits)",
    "occluded": "hidden under an opaque element drawn over it: an occlusion (reference "
                "does not check what is drawn on top)",
}


@dataclass
class KindDiff:
    kind: str
    location: str
    reference: int
    default: int
    reasons: Counter[str] = field(default_factory=Counter)

    def describe(self) -> str:
        why = "; ".join(f"{WHY[r]} x{n}" for r, n in self.reasons.most_common())
        return f"{self.kind} @ {self.location}: reference {self.reference}, " \
               f"default {self.default} -- {why}"


def _sel(d: dict[str, Any], i: int = 0) -> str:
    els = d.get("elements") or []
    return els[i]["selector"] if len(els) > i else ""


def _reasons_for(kind: str, ref: list[dict], dfl: list[dict], skipped: dict[str, str],
                 modality: str) -> Counter[str]:
    why: Counter[str] = Counter()
    hidden = {k: v for k, v in skipped.items() if v in ("invisible", "clipped", "occluded")}
    if kind == "text_overlap":
        groups = [{e["selector"] for e in d["elements"]} for d in dfl]
        pairs_in_group: Counter[int] = Counter()
        for d in ref:
            a, b = _sel(d, 0), _sel(d, 1)
            gi = next((i for i, g in enumerate(groups) if a in g and b in g), None)
            if gi is not None:
                pairs_in_group[gi] += 1
            elif a in hidden or b in hidden:
                why[hidden.get(a) or hidden[b]] += 1
            else:
                why["glyph_overlap"] += 1
        why["grouped"] += sum(n - 1 for n in pairs_in_group.values())
        why["default_only"] += len(groups) - len(pairs_in_group) if len(dfl) > len(ref) else 0
    elif kind == "out_of_bounds":
        dsel = {_sel(d) for d in dfl}
        rsel = {_sel(d) for d in ref}
        for r in rsel - dsel:
            if r in hidden:
                why[hidden[r]] += 1
            elif any(r.startswith(d + " > ") for d in dsel):
                why["outermost"] += 1
            else:
                why["glyph_inside"] += 1
        why["default_only"] += len(dsel - rsel)
    elif kind == "overflow":
        dboxes = {_sel(d): d for d in dfl}
        rboxes = {_sel(d): d for d in ref}
        for r, d in rboxes.items():
            if r in dboxes:
                continue
            if r in skipped:
                why[skipped[r]] += 1
            elif _sel(d, 1) in ("html > body", "html"):
                why["page_container"] += 1
            else:
                why["glyph_fit"] += 1
        for s, d in dboxes.items():
            if s not in rboxes:
                reason = (d.get("detail") or {}).get("reason")
                why[{"own_box": "own_box", "clipped": "cut"}.get(reason or "", "glyph_past")] += 1
    elif kind == "scrollbar":
        if len(ref) > len(dfl):
            why["root_hides"] += 1
    elif kind == "misalignment":
        why["cards"] += 1
    elif kind == "occlusion":
        why["occluded"] += len(dfl)
    if modality == "animation" and not why:
        why["timing"] += 1
    return why


def explain(ref: Measurement, dfl: Measurement) -> list[KindDiff]:
    """The (kind, location) cells where the two measurements differ, with reasons."""
    out: list[KindDiff] = []
    by_loc = {r.location: r for r in dfl.runs}
    for rrun in ref.runs:
        drun: ProbeRun | None = by_loc.get(rrun.location)
        if drun is None:
            continue
        skipped = {s["selector"]: s["reason"] for s in drun.skipped}
        for kind in sorted({d["kind"] for d in rrun.defects + drun.defects}):
            rd = [d for d in rrun.defects if d["kind"] == kind]
            dd = [d for d in drun.defects if d["kind"] == kind]
            reasons = +_reasons_for(kind, rd, dd, skipped, ref.modality)
            # equal counts can still hide different elements: list those too
            if len(rd) != len(dd) or set(reasons) - {"cards", "timing"}:
                out.append(KindDiff(kind, rrun.location, len(rd), len(dd), reasons))
    if dfl.blocked:
        out.append(KindDiff("external_resource", "network", 0, len(dfl.blocked),
                            Counter(network=len(dfl.blocked))))
    if dfl.missing:
        out.append(KindDiff("missing_resource", "network", 0, len(dfl.missing),
                            Counter(missing=len(dfl.missing))))
    if dfl.navigations:
        out.append(KindDiff("navigation", "document", 0, len(dfl.navigations),
                            Counter(navigation=len(dfl.navigations))))
    return out


async def _both(host: BrowserHost, html: str, modality: str, frames: tuple[int, ...] | None,
                base_dir: Path | None = None, timeout_s: float = PROBE_TIMEOUT_S
                ) -> tuple[Measurement, Measurement]:
    ref, dfl = await asyncio.gather(
        measure_html(host, html, modality, get_profile("reference"), frames, base_dir,
                     timeout_s=timeout_s),
        measure_html(host, html, modality, get_profile("default"), frames, base_dir,
                     timeout_s=timeout_s))
    return ref, dfl


def diff_profiles(items: list[tuple[str, str, tuple[int, ...] | None]],
                  host: BrowserHost | None = None,
                  base_dirs: Sequence[Path | None] | None = None, *,
                  timeout_s: float = PROBE_TIMEOUT_S) -> list[list[KindDiff] | str]:
    """For each (html, modality, frames): its differences, or the error that stopped it.

    `base_dirs[i]`, when given, is the folder item i's relative URLs are served from;
    `timeout_s` is each viewport's limit.
    """
    host = host or get_browser_host()
    dirs = list(base_dirs) if base_dirs is not None else [None] * len(items)
    def both(it: tuple[tuple[str, str, tuple[int, ...] | None], Path | None]) -> Any:
        (html, modality, frames), base_dir = it
        return _both(host, html, modality, frames, base_dir, timeout_s)
    results = host.gather(both, list(zip(items, dirs, strict=True)))
    out: list[list[KindDiff] | str] = []
    for res in results:
        if isinstance(res, BaseException):
            out.append(f"{type(res).__name__}: {res}")
        elif res[0].error or res[1].error:
            out.append(res[0].error or res[1].error or "")
        else:
            out.append(explain(*res))
    return out
