"""Render a report to HTML: one self-contained index page plus an assets folder.

`OUT.html` holds the tables inline (CSS included, no scripts, no network); next to
it `OUT_assets/` holds the plots (PNG), one page per trial (`trials/ID.html`) and
the screenshots and overlays copied out of the run store (`blobs/`). Templates
autoescape everything and fail on any undefined name (StrictUndefined).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from tether.report.data import Report, TrialEntry
from tether.report.plots import draw_all
from tether.runs.store import RunStore

ASSET_DIRS = ("plots", "trials", "blobs")  # the only folders a rerun clears
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg")


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            return "–"
        if x != 0 and abs(x) < 10 ** -digits:
            return f"{x:.1e}"
        if abs(x) >= 1000:
            return f"{x:,.0f}"
        return f"{x:.{digits}f}".rstrip("0").rstrip(".")
    return str(x)


def _pvalue(p: float | None) -> str:
    if p is None:
        return "–"
    return f"{p:.2g}" if p >= 0.001 else f"{p:.1e}"


def _score(s: dict[str, Any]) -> str:
    """`40.0% [23.1, 61.0]` for pass rates, `3.2 [2.1, 4.5]` for means."""
    if s["value"] is None:
        return "–"
    if s["mode"] == "pass":
        return f"{100 * s['value']:.1f}% [{100 * s['low']:.1f}, {100 * s['high']:.1f}]"
    sd = f" (SD {_fmt(s['sd'])})" if s.get("sd") is not None else ""
    return f"{_fmt(s['value'])} [{_fmt(s['low'])}, {_fmt(s['high'])}]{sd}"


def _effect(e: dict[str, Any], mode: str) -> str:
    """An effect with its CI, in the unit a reader expects for the metric."""
    est, low, high = e["estimate"], e["low"], e["high"]
    if est is None:
        return "undefined (baseline sum is 0)"
    if e["statistic"] == "relative_reduction":
        return f"{est:+.1f}% fewer defects [{_signed(low, 1)}, {_signed(high, 1)}]"
    if mode == "pass":
        return f"{100 * est:+.1f} pp [{_signed(low, 1, 100)}, {_signed(high, 1, 100)}]"
    return f"{est:+.3g} [{_signed(low, 3)}, {_signed(high, 3)}]"


def _signed(x: float | None, digits: int, scale: float = 1.0) -> str:
    return "–" if x is None else f"{scale * x:+.{digits}f}"


def _value(x: float | None, mode: str) -> str:
    """A trial's value as a reader says it: pass/fail, a defect count, a score."""
    if x is None:
        return "–"
    if mode == "pass":
        return "pass" if x else "fail"
    if mode == "defects":
        return f"{x:.0f} defect{'' if x == 1 else 's'}"
    return _fmt(x)


def _tojson(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str)


def environment() -> Environment:
    env = Environment(loader=PackageLoader("tether.report", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    env.filters.update(fmt=_fmt, pvalue=_pvalue, pretty=_tojson, score=_score, effect=_effect,
                       value=_value)
    return env


def _message_parts(message: dict[str, Any]) -> list[dict[str, str]]:
    """A chat message as text and image parts (OpenAI-style content lists included)."""
    content = message.get("content")
    if isinstance(content, str) or content is None:
        return [{"kind": "text", "text": content or ""}]
    parts = []
    for part in content if isinstance(content, list) else [content]:
        if isinstance(part, dict) and part.get("type") == "text":
            parts.append({"kind": "text", "text": str(part.get("text", ""))})
        elif isinstance(part, dict) and part.get("type") == "image_url":
            url = str((part.get("image_url") or {}).get("url", ""))
            ok = url.startswith("data:image/")
            parts.append({"kind": "image" if ok else "text", "text": url if ok else "[image]"})
        else:
            parts.append({"kind": "text", "text": _tojson(part)})
    return parts


def _images(raw: dict[str, Any], store: RunStore, assets: Path) -> list[dict[str, str]]:
    """Screenshots/overlays an instrument stored as blobs (raw `*_digest` keys)."""
    found = []
    for key, digest in sorted(raw.items()):
        if not key.endswith("_digest") or not isinstance(digest, str):
            continue
        src = store.artifact_path(digest)
        if src is None or not src.is_file() or src.suffix.lower() not in _IMAGE_SUFFIXES:
            continue
        dest = assets / "blobs" / src.name
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
        found.append({"label": key.removesuffix("_digest"), "src": f"../blobs/{src.name}"})
    return found


def _trial_page(env: Environment, entry: TrialEntry, store: RunStore, assets: Path,
                index_href: str, numbers: dict[str, Any]) -> None:
    rec = entry.record
    observations = [{"row": o, "obs": o.observation,
                     "images": _images(o.observation.raw, store, assets)}
                    for o in rec.observations]
    metric_images = _images(rec.metric.raw, store, assets) if rec.metric else []
    calls = [{"call": c, "messages": [{"role": m.get("role", "?"), "parts": _message_parts(m)}
                                      for m in c.messages]} for c in rec.calls]
    artifact_text = store.artifact_text(rec.artifact) if rec.artifact else None
    html = env.get_template("trial.html.j2").render(
        rec=rec, entry=entry, calls=calls, observations=observations,
        metric_images=metric_images, artifact_text=artifact_text, index_href=index_href,
        metric=numbers["metric"])
    path = assets / entry.page
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html)


def write_report(report: Report, store: RunStore, out: Path) -> Path:
    """Write OUT.html and OUT_assets/; returns the path of the HTML file."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    assets = out.parent / f"{out.stem}_assets"
    for name in ASSET_DIRS:
        shutil.rmtree(assets / name, ignore_errors=True)
    numbers = report.numbers
    plots = draw_all(numbers, assets)
    env = environment()
    index_href = f"../../{out.name}"
    for entry in report.entries:
        _trial_page(env, entry, store, assets, index_href, numbers)
    html = env.get_template("index.html.j2").render(
        n=numbers, plots=plots, assets=assets.name, entries=report.entries,
        compare_values=report.compare_values)
    out.write_text(html)
    return out
