"""Render a report to HTML: one self-contained index page plus an assets folder.

`OUT.html` holds the tables inline (CSS included, no scripts, no network); next to
it `OUT_assets/` holds the plots (PNG), one page per trial (`trials/ID.html`) and
the screenshots and overlays copied out of the run store (`blobs/`). Templates
autoescape everything and fail on any undefined name (StrictUndefined).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from jinja2 import Environment

from tether.report.data import Report
from tether.report.jinja import environment, to_json
from tether.report.plots import draw_all
from tether.report.section import TrialEntry, sections
from tether.runs import RunStore, fmt_usd

ASSET_DIRS = ("plots", "trials", "blobs")  # the only folders a rerun clears
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg")


def _message_parts(message: dict[str, Any]) -> list[dict[str, str | None]]:
    """A chat message as text and image parts (OpenAI-style content lists included)."""
    content = message.get("content")
    calls: list[dict[str, str | None]] = [{"kind": "text", "text": tool_call_text(c)}
                                          for c in message.get("tool_calls") or ()]
    if message.get("role") == "tool":
        calls.insert(0, {"kind": "text", "text": f"[answers {message.get('tool_call_id')}]"})
    if isinstance(content, str) or content is None:
        return ([{"kind": "text", "text": content}] if content or not calls else []) + calls
    parts: list[dict[str, str | None]] = []
    for part in content if isinstance(content, list) else [content]:
        if isinstance(part, dict) and part.get("type") == "text":
            parts.append({"kind": "text", "text": str(part.get("text", ""))})
        elif isinstance(part, dict) and part.get("type") == "image_url":
            url = str((part.get("image_url") or {}).get("url", ""))
            ok = url.startswith("data:image/")
            parts.append({"kind": "image" if ok else "text", "text": url if ok else "[image]"})
        else:
            parts.append({"kind": "text", "text": to_json(part)})
    return parts + calls


def tool_call_text(call: dict[str, Any]) -> str:
    """A native tool call as one readable line: `[tool call id] name(arguments)`."""
    fn = call.get("function") or {}
    return f"[tool call {call.get('id', '')}] {fn.get('name', '?')}({fn.get('arguments', '')})"


def _images(raw: dict[str, Any], store: RunStore, assets: Path,
            href: str = "..") -> list[dict[str, str]]:
    """Screenshots/overlays an instrument stored as blobs (raw `*_digest` keys).

    `href` is the assets folder as seen from the page that shows them (trial pages
    sit one level inside it).
    """
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
        found.append({"label": key.removesuffix("_digest"), "src": f"{href}/blobs/{src.name}"})
    return found


def _measured_pages(meta: dict[str, Any], store: RunStore, assets: Path) -> list[dict]:
    """Pages measured beside the run (meta `measured_pages`, e.g. the demo's examples)."""
    pages = []
    for row in meta.get("measured_pages") or []:
        images = _images({"overlay_digest": row.get("overlay_digest")}, store, assets,
                         href=assets.name)
        pages.append({**row, "images": images})
    return pages


def _trial_page(env: Environment, entry: TrialEntry, store: RunStore, assets: Path,
                index_href: str, numbers: dict[str, Any]) -> None:
    rec = entry.record
    observations = [{"row": o, "obs": o.observation,
                     "images": _images(o.observation.raw, store, assets)}
                    for o in rec.observations]
    metric_images = _images(rec.metric.raw, store, assets) if rec.metric else []
    costs = (numbers.get("spend") or {}).get("call_costs", {}).get(rec.trial_id)
    calls = [{"call": c, "messages": [{"role": m.get("role", "?"), "parts": _message_parts(m)}
                                      for m in c.messages],
              "tool_calls": [tool_call_text(t) for t in c.tool_calls],
              "cost": fmt_usd(costs[i]) if costs else None}
             for i, c in enumerate(rec.calls)]
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
    for section in sections():
        plots[section.name] = section.draw(numbers.get(section.name), assets)
    env = environment()
    index_href = f"../../{out.name}"
    for entry in report.entries:
        _trial_page(env, entry, store, assets, index_href, numbers)
    pages = _measured_pages(numbers["run"].get("meta") or {}, store, assets)
    for section in sections():
        if numbers.get(section.name):
            section.finish(numbers[section.name], store)
    html = env.get_template("index.html.j2").render(
        n=numbers, plots=plots, assets=assets.name, entries=report.entries,
        compare_values=report.compare_values, pages=pages, sections=sections("body"))
    # costs and score vs tokens spent, then the sections registered for the page's end
    from tether.report.spend_plots import spend_section

    spend = spend_section(numbers, assets, env)
    ends = ([spend] if spend else []) + [
        section.render(env, numbers[section.name]) for section in sections("end")
        if numbers.get(section.name)]
    if ends:
        html = html.replace("</body>", "\n".join(ends) + "\n</body>", 1)
    out.write_text(html)
    return out
