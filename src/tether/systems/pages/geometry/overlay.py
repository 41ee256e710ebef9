"""Overlay: a screenshot with every defect's boxes drawn and labelled.

The page is rendered and probed again at one viewport and frame, the boxes the
probe found are drawn in the page itself (absolutely positioned outlines and
labels above everything, no pointer events), then Chromium takes the screenshot.
Drawing in the page needs no image library and uses the probe's own coordinates:
the layer hangs from the root element and subtracts its own measured offset, so a
positioned or shifted body moves nothing, and each outline is measured back before the
screenshot (one farther than MAX_DRIFT_PX from its box fails the overlay).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether.core import Observation
from tether.systems.pages.geometry.browser import BrowserHost
from tether.systems.pages.geometry.measure import PROBE_TIMEOUT_S, ProbeRun, probe_one
from tether.systems.pages.geometry.profiles import Profile, viewports_for

COLORS = {"text_overlap": "#e6194b", "out_of_bounds": "#f58231", "overflow": "#911eb4",
          "scrollbar": "#4363d8", "misalignment": "#3cb44b", "occlusion": "#808000"}

#: how far (CSS px) a drawn outline may sit from the box the probe measured before the
#: overlay is refused as a picture that would mislead
MAX_DRIFT_PX = 1.5

# The layer is a child of the root element (never of body, which a page may position and
# shift: a layer inside it would carry that shift). Its own offset from the viewport's
# origin is measured once it is in the document and taken off every box, so an outline
# lands on the viewport coordinates the probe measured whatever contains the layer; then
# each drawn outline is measured back and the largest distance from its box returned.
DRAW_JS = r"""
(args) => {
  const layer = document.createElement('div');
  layer.setAttribute('data-tether-overlay', '1');
  layer.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;margin:0;'
    + 'padding:0;border:0;transform:none;z-index:2147483647;pointer-events:none;';
  document.documentElement.appendChild(layer);
  const origin = layer.getBoundingClientRect();
  const drawn = [];
  args.defects.forEach((d, i) => {
    const color = args.colors[d.kind] || '#000';
    d.elements.forEach((e, j) => {
      const b = e.box;
      const box = document.createElement('div');
      box.style.cssText = `position:absolute;left:${b.x - origin.left}px;`
        + `top:${b.y - origin.top}px;width:${Math.max(b.w, 2)}px;`
        + `height:${Math.max(b.h, 2)}px;margin:0;`
        + `outline:3px solid ${color};background:${color}22;box-sizing:border-box;`;
      layer.appendChild(box);
      drawn.push([box, b]);
      if (j > 0 && d.kind !== 'misalignment') return;
      const tag = document.createElement('div');
      tag.textContent = `${i + 1} ${d.kind}`;
      tag.style.cssText = `position:absolute;left:${Math.max(0, b.x - origin.left)}px;`
        + `top:${Math.max(0, b.y - origin.top - 18)}px;background:${color};color:#fff;`
        + 'font:bold 13px "DejaVu Sans",sans-serif;padding:1px 4px;white-space:nowrap;';
      layer.appendChild(tag);
    });
  });
  let drift = 0;
  for (const [box, b] of drawn) {
    const r = box.getBoundingClientRect();
    drift = Math.max(drift, Math.abs(r.left - b.x), Math.abs(r.top - b.y));
  }
  return {drawn: drawn.length, drift};
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
                         out_path: Path, base_dir: Path | None = None, *,
                         timeout_s: float = PROBE_TIMEOUT_S) -> ProbeRun:
    """Probe at (viewport, frame), draw what it found, and write the PNG to out_path."""
    async def draw(page: Any, runs: list[ProbeRun]) -> None:
        drawn = await page.evaluate(DRAW_JS, {"defects": runs[0].defects, "colors": COLORS})
        if drawn["drift"] > MAX_DRIFT_PX:  # a picture with boxes beside their elements misleads
            raise RuntimeError(f"the outlines land {drawn['drift']:.0f} px from the boxes "
                               "the probe measured")
        await page.screenshot(path=str(out_path), full_page=modality == "web",
                              animations="allow")
    if modality == "animation" and frame_ms is None:
        frame_ms = 0
    m = await probe_one(host, html, modality, profile, viewport, frame_ms, draw, base_dir,
                        timeout_s=timeout_s)
    if m.error:
        raise RuntimeError(f"overlay render failed at {m.error}")
    return m.runs[0]
