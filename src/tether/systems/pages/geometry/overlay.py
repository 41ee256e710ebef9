"""Overlay: a screenshot with every defect's boxes drawn and labelled.

The page is rendered and probed again at one viewport and frame, the boxes the
probe found are drawn in the page itself (absolutely positioned outlines and
labels above everything, no pointer events), then Chromium takes the screenshot.
Drawing in the page needs no image library and matches the probe's coordinates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether.core import Observation
from tether.systems.pages.geometry.browser import BrowserHost
from tether.systems.pages.geometry.measure import ProbeRun, probe_one
from tether.systems.pages.geometry.profiles import Profile, viewports_for

COLORS = {"text_overlap": "#e6194b", "out_of_bounds": "#f58231", "overflow": "#911eb4",
          "scrollbar": "#4363d8", "misalignment": "#3cb44b"}

DRAW_JS = r"""
(args) => {
  const layer = document.createElement('div');
  layer.setAttribute('data-tether-overlay', '1');
  layer.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;'
    + 'z-index:2147483647;pointer-events:none;';
  const sx = window.scrollX, sy = window.scrollY;
  args.defects.forEach((d, i) => {
    const color = args.colors[d.kind] || '#000';
    d.elements.forEach((e, j) => {
      const b = e.box;
      const box = document.createElement('div');
      box.style.cssText = `position:absolute;left:${b.x + sx}px;top:${b.y + sy}px;`
        + `width:${Math.max(b.w, 2)}px;height:${Math.max(b.h, 2)}px;`
        + `outline:3px solid ${color};background:${color}22;box-sizing:border-box;`;
      layer.appendChild(box);
      if (j > 0 && d.kind !== 'misalignment') return;
      const tag = document.createElement('div');
      tag.textContent = `${i + 1} ${d.kind}`;
      tag.style.cssText = `position:absolute;left:${Math.max(0, b.x + sx)}px;`
        + `top:${Math.max(0, b.y + sy - 18)}px;background:${color};color:#fff;`
        + 'font:bold 13px "DejaVu Sans",sans-serif;padding:1px 4px;white-space:nowrap;';
      layer.appendChild(tag);
    });
  });
  (document.body || document.documentElement).appendChild(layer);
  return layer.childElementCount;
}
"""


def pick_location(obs: Observation, modality: str) -> tuple[tuple[int, int], int | None]:
    """The viewport and frame with the most defects (the first one when clean)."""
    per: dict[str, int] = obs.raw.get("per_location") or {}
    best = max(per, key=lambda k: per[k]) if per and max(per.values()) > 0 else None
    for d in obs.defects:
        if d.location == best and d.evidence.get("viewport"):
            return tuple(d.evidence["viewport"]), d.evidence.get("frame_ms")
    frames = [d.evidence.get("frame_ms") for d in obs.defects if d.evidence.get("viewport")]
    return viewports_for(modality)[0], (frames[0] if frames else None)


async def render_overlay(host: BrowserHost, html: str, modality: str, profile: Profile,
                         viewport: tuple[int, int], frame_ms: int | None,
                         out_path: Path, base_dir: Path | None = None) -> ProbeRun:
    """Probe at (viewport, frame), draw what it found, and write the PNG to out_path."""
    async def draw(page: Any, runs: list[ProbeRun]) -> None:
        await page.evaluate(DRAW_JS, {"defects": runs[0].defects, "colors": COLORS})
        await page.screenshot(path=str(out_path), full_page=modality == "web",
                              animations="allow")
    if modality == "animation" and frame_ms is None:
        frame_ms = 0
    m = await probe_one(host, html, modality, profile, viewport, frame_ms, draw, base_dir)
    if m.error:
        raise RuntimeError(f"overlay render failed at {m.error}")
    return m.runs[0]
