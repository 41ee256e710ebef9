"""Overlay PNGs: the defects' boxes are drawn into the page before the screenshot."""

from __future__ import annotations

import struct

from tests.systems.pages.geometry.conftest import PLANTED
from tether.systems.pages.geometry.instrument import GeometryInstrument
from tether.systems.pages.geometry.overlay import pick_location, render_overlay


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def _overlay(host, name, modality, tmp_path, frames=None, profile="reference"):
    inst = GeometryInstrument(GeometryInstrument.Params(profile=profile), host=host)
    html = (PLANTED / name).read_text()
    obs = inst.measure(html, modality, frames)
    vp, frame = pick_location(obs, modality)
    out = tmp_path / f"{name}.png"
    run = host.run(render_overlay(host, html, modality, inst.profile, vp, frame, out))
    return obs, run, out


def test_fixed_canvas_overlay_draws_every_defect(browser_host, tmp_path):
    obs, run, out = _overlay(browser_host, "overlap_cascade.html", "figure", tmp_path)
    assert _png_size(out) == (1920, 1080)
    assert len(run.defects) == len(obs.defects) == 3
    # a page with outlines drawn differs from the same page screenshot bare
    bare = tmp_path / "bare.png"

    async def shot():
        async with browser_host.page(1920, 1080) as s:
            await s.page.set_content((PLANTED / "overlap_cascade.html").read_text())
            await s.page.screenshot(path=str(bare))
    browser_host.run(shot())
    assert bare.read_bytes() != out.read_bytes()


def test_web_overlay_uses_the_viewport_with_defects_full_page(browser_host, tmp_path):
    obs, run, out = _overlay(browser_host, "web_fixed_width.html", "web", tmp_path,
                             profile="default")
    assert run.viewport == (375, 812)
    width, height = _png_size(out)
    assert width == 600 and height >= 812  # full page: the too-wide banner is included


def test_animation_overlay_picks_the_frame_with_defects(browser_host, tmp_path):
    obs, run, out = _overlay(browser_host, "anim_css.html", "animation", tmp_path,
                             frames=(0, 1000, 2000), profile="default")
    assert run.frame_ms == 1000 and len(run.defects) == 1
    assert _png_size(out) == (1920, 1080)
