"""From probe output to Defects: messages, evidence, suggested fixes, and feedback.

A defect's evidence is `{elements: [{selector, label, box}], viewport, frame_ms,
suggested_fix, detail}`, box = {x, y, w, h} in CSS px of that viewport; the
feedback formatter turns it into lines a model can act on, with coordinates.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from tether.core import Defect, Observation
from tether.systems.pages.geometry.guard import Blocked
from tether.systems.pages.geometry.local_files import MissingResource
from tether.systems.pages.geometry.measure import Measurement, ProbeRun

KINDS = ("text_overlap", "out_of_bounds", "overflow", "scrollbar", "misalignment",
         "occlusion", "external_resource", "navigation", "missing_resource")

FIXES = {
    "text_overlap": "move the texts apart (or give them separate rows/columns) so their "
                    "boxes no longer intersect",
    "out_of_bounds": "move or shrink it so it lies fully inside the canvas with >= 10 px margin",
    "overflow": "give the text room: widen or grow its container, allow wrapping, or "
                "shorten the text",
    "overflow/own_box": "let the text wrap (remove white-space: nowrap), widen the element, "
                        "or shorten the text",
    "overflow/own_box/vertical": "give the box the height its lines need (remove the fixed "
                                 "height or use min-height), or shorten the text",
    "overflow/own_box/both": "let the box grow with its text (remove the fixed width and "
                             "height, allow wrapping), or shorten the text",
    "overflow/clipped": "enlarge the clipping container or move the text inside it",
    "scrollbar": "make the page fit: constrain widths (max-width: 100%, box-sizing: "
                 "border-box) and remove fixed sizes larger than the canvas",
    "misalignment": "give the grouped cards one shared width/height, aligned edges and "
                    "equal gaps (a grid or flex row with gap)",
    "misalignment/offset": "move the shifted card back into line (remove its own margin, top "
                           "or transform offset, or align the row with align-items: start)",
    "occlusion": "give the hidden content a place of its own: move the element drawn over "
                 "it into the layout flow (drop its absolute/fixed position, negative margin "
                 "or transform), or move or remove it",
    "external_resource": "inline the resource (data: URL, inline SVG, system fonts); "
                         "artifacts must not load anything from the network",
    "missing_resource": "add the file to the page's folder or fix the reference (paths are "
                        "relative to the page; nothing outside its folder is served)",
    "navigation": "remove the redirect (location changes, meta refresh, reloads, form "
                  "submissions): the artifact must stay this page; for steps or slides "
                  "change the URL hash or use history.pushState",
}


# What each misalignment criterion found, in words (see docs/pages.md for the rule).
_REASONS = {"size": "unequal sizes", "edge": "unequal end edges", "gap": "unequal gaps",
            "offset": "a card shifted out of line"}


def _box(b: dict[str, Any]) -> str:
    return f"({b['x']:.0f},{b['y']:.0f} {b['w']:.0f}x{b['h']:.0f})"


def _name(e: dict[str, Any]) -> str:
    return f'"{e["label"]}"' if e.get("label") else e.get("selector", "element")


def _message(kind: str, d: dict[str, Any], viewport: tuple[int, int]) -> tuple[str, str]:
    els, detail = d.get("elements", []), d.get("detail") or {}
    if kind == "text_overlap":
        if len(els) == 2:
            return (f"text {_name(els[0])} {_box(els[0]['box'])} overlaps "
                    f"text {_name(els[1])} {_box(els[1]['box'])}", FIXES[kind])
        names = ", ".join(_name(e) for e in els[:6])
        return f"{len(els)} texts overlap each other: {names}", FIXES[kind]
    if kind == "out_of_bounds":
        e = els[0]
        return (f"{_name(e)} {_box(e['box'])} extends beyond the "
                f"{viewport[0]}x{viewport[1]} canvas edge", FIXES[kind])
    if kind == "overflow":
        e, reason = els[0], detail.get("reason", "container")
        if reason == "own_box":
            return _own_box_message(e, detail)
        if reason == "clipped":
            return (f"{_name(e)} {_box(e['box'])} is cut off by a clipping container",
                    FIXES["overflow/clipped"])
        where = f" {els[1]['selector']} {_box(els[1]['box'])}" if len(els) > 1 else ""
        return f"{_name(e)} {_box(e['box'])} extends outside its container{where}", FIXES[kind]
    if kind == "scrollbar":
        parts = []
        if detail.get("overW", 0) > 16:
            parts.append(f"{detail['overW']:.0f}px too wide")
        if detail.get("overH", 0) > 16:
            parts.append(f"{detail['overH']:.0f}px too tall")
        return f"the page is {' and '.join(parts) or 'larger than the canvas'}", FIXES[kind]
    if kind == "misalignment":
        findings = detail.get("findings") or [
            {"axis": detail.get("axis"), "reasons": [detail.get("criterion")]}]
        what = "; ".join(f"{f['axis']}: " + ", ".join(_REASONS.get(r, f"unequal {r}")
                                                      for r in f["reasons"])
                         for f in findings)
        boxes = " ".join(_box(e["box"]) for e in els[:6])
        shifted = any("offset" in (f.get("reasons") or []) for f in findings)
        return (f"{len(els)} cards are misaligned ({what}): {boxes}",
                FIXES["misalignment/offset" if shifted else kind])
    if kind == "occlusion":
        share = detail.get("share")
        how = f"{share:.0%} of it" if isinstance(share, int | float) else "most of it"
        cover = f" under {_name(els[1])} {_box(els[1]['box'])}" if len(els) > 1 else ""
        return (f"{_name(els[0])} {_box(els[0]['box'])} is hidden{cover}: {how} covered",
                FIXES[kind])
    return f"{kind}: {detail}", FIXES.get(kind, "")


def _own_box_message(e: dict[str, Any], detail: dict[str, Any]) -> tuple[str, str]:
    """Text past its own box, said along the axis it overflows (no axis: older records)."""
    axis = detail.get("axis") or "horizontal"
    sw, cw = detail.get("scroll") or ("?", "?")
    sh, ch = detail.get("scroll_y") or ("?", "?")
    wide = f"{sw}px of text in a box {cw}px wide"
    tall = f"{sh}px of text in a box {ch}px high"
    if axis == "vertical":
        return (f"{_name(e)} {_box(e['box'])} overflows vertically: {tall}",
                FIXES["overflow/own_box/vertical"])
    if axis == "both":
        return (f"{_name(e)} {_box(e['box'])} overflows both ways: {wide}, {tall}",
                FIXES["overflow/own_box/both"])
    return f"{_name(e)} {_box(e['box'])} is {wide}", FIXES["overflow/own_box"]


def defect_from_probe(d: dict[str, Any], run: ProbeRun) -> Defect:
    kind = d["kind"]
    message, fix = _message(kind, d, run.viewport)
    return Defect(kind=kind, message=message, location=run.location, evidence={
        "elements": d.get("elements", []), "viewport": list(run.viewport),
        "frame_ms": run.frame_ms, "suggested_fix": fix, "detail": d.get("detail") or {}})


def _shown(url: str) -> str:
    return url if len(url) <= 120 else url[:117] + "..."


def external_defect(item: Blocked) -> Defect:
    return Defect(kind="external_resource",
                  message=f"blocked {item.describe()} to {_shown(item.url)}",
                  location="network", evidence={"elements": [], "url": item.url, "via": item.via,
                                                "viewport": None, "frame_ms": None,
                                                "suggested_fix": FIXES["external_resource"]})


def missing_defect(item: MissingResource) -> Defect:
    return Defect(kind="missing_resource",
                  message=f"the page loads {_shown(item.path)} ({item.via}), which its folder "
                          f"does not have: {item.reason}",
                  location="network", evidence={"elements": [], "url": item.url,
                                                "path": item.path, "via": item.via,
                                                "reason": item.reason, "viewport": None,
                                                "frame_ms": None,
                                                "suggested_fix": FIXES["missing_resource"]})


def navigation_defect(url: str) -> Defect:
    return Defect(kind="navigation",
                  message=f"the page tried to navigate away to {_shown(url)}; the navigation "
                          "was blocked and the page measured as it stands",
                  location="document", evidence={"elements": [], "url": url, "viewport": None,
                                                 "frame_ms": None,
                                                 "suggested_fix": FIXES["navigation"]})


def observation_from(m: Measurement, *, name: str, version: str,
                     counts_external: bool) -> Observation:
    """The Observation for a measurement: score = number of defects, or an error."""
    raw: dict[str, Any] = {"profile": m.profile, "modality": m.modality,
                           "locations": [r.location for r in m.runs],
                           "blocked_requests": [{"via": b.via, "url": b.url} for b in m.blocked],
                           "navigations": m.navigations, "page_errors": m.page_errors[:20],
                           "served_files": m.served,
                           "missing_resources": [{"via": x.via, "url": x.url, "path": x.path,
                                                  "reason": x.reason} for x in m.missing]}
    if m.error:
        return Observation(instrument=name, version=version, grounded=True,
                           error=f"geometry probe failed at {m.error}", raw=raw)
    defects = [defect_from_probe(d, r) for r in m.runs for d in r.defects]
    if counts_external:
        defects += [external_defect(b) for b in m.blocked]
        defects += [missing_defect(x) for x in m.missing]
        defects += [navigation_defect(u) for u in m.navigations]
    counts = Counter(d.kind for d in defects)
    raw.update(n_defects=len(defects), counts=dict(sorted(counts.items())),
               per_location={r.location: len(r.defects) for r in m.runs})
    return Observation(instrument=name, version=version, grounded=True,
                       score=float(len(defects)), passed=not defects, defects=defects, raw=raw,
                       higher_is_better=False, aggregation="defect_count")


#: a box as `_box` writes it, and how many examples of a kind the study's feedback gave
_BOX = re.compile(r" ?\(-?\d+,-?\d+ \d+x\d+\)")
STUDY_LIMITS = {"text_overlap": 12}
STUDY_LIMIT = 8


def format_geometry_feedback(obs: Observation, limit_per_kind: int = 8,
                             coordinates: bool = True) -> str:
    """Lines a proposer can act on: kind, where, coordinates, and a suggested fix.

    `coordinates=False` is the interaction-scaling study's form (its geometry-probe
    notes): one line per example defect, up to 12 overlaps and 8 of each other kind,
    each with its viewport or frame and a fix, and no coordinates."""
    if obs.error:
        return f"The layout could not be measured ({obs.error}); fix the page so it renders."
    if not obs.defects:
        return "Layout check: no defects found."
    counts = Counter(d.kind for d in obs.defects)
    head = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    lines = [f"Layout check found {len(obs.defects)} defect(s): {head}."
             + (" Coordinates are CSS px (x,y width x height) in the named viewport."
                if coordinates else "")]

    def limit(kind: str) -> int:
        return limit_per_kind if coordinates else STUDY_LIMITS.get(kind, STUDY_LIMIT)

    shown: Counter[str] = Counter()
    for d in obs.defects:
        shown[d.kind] += 1
        if shown[d.kind] > limit(d.kind):
            continue
        fix = d.evidence.get("suggested_fix")
        message = d.message if coordinates else _BOX.sub("", d.message)
        lines.append(f"- {d.kind.upper()} [{d.location}]: {message}"
                     + (f" -- fix: {fix}" if fix else ""))
    for kind, n in sorted(counts.items()):
        if n > limit(kind):
            lines.append(f"- ... and {n - limit(kind)} more {kind}")
    return "\n".join(lines)
