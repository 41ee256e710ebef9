"""Render one HTML artifact and run a profile's probe at each viewport and frame.

Reference profile: the study's procedure (set_content, wait for network idle, wait
80 ms; animations: wait 50 ms, then wall-clock waits until each frame time).
Default profile: virtual time (temporal.py): load, fonts ready, then the clock is
advanced to each frame time (static pages: settled), so results do not depend on
machine speed.

A failure at one viewport or frame is kept as that probe's error; the instrument
turns any error into an error observation, never into "no defects".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from tether.instruments.geometry.browser import BrowserHost
from tether.instruments.geometry.profiles import (
    DEFAULT_FRAMES_MS,
    Profile,
    viewports_for,
)
from tether.instruments.geometry.temporal import CLOCK_JS, advance_to, settle

LOAD_TIMEOUT_MS = 15_000
PROBE_TIMEOUT_S = 30.0
#: virtual time a static page gets to run its timers before it is measured (default).
SETTLE_MS = 1000


@dataclass
class ProbeRun:
    """One probe evaluation: the defects it returned, or why there are none."""

    viewport: tuple[int, int]
    frame_ms: int | None
    defects: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    done: bool = False
    #: elements the default probe left out, with why (for the profile diff)
    skipped: list[dict[str, Any]] = field(default_factory=list)

    @property
    def location(self) -> str:
        where = f"{self.viewport[0]}x{self.viewport[1]}"
        return where if self.frame_ms is None else f"{where} @ {self.frame_ms}ms"


@dataclass
class Measurement:
    profile: str
    modality: str
    runs: list[ProbeRun]
    blocked: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    @property
    def error(self) -> str | None:
        errors = [f"{r.location}: {r.error}" for r in self.runs if r.error]
        return "; ".join(errors) if errors else None


#: called with the page and its probe runs while the page is still open (the overlay).
AfterProbe = Callable[[Any, list[ProbeRun]], Awaitable[None]]


async def measure_html(host: BrowserHost, html: str, modality: str, profile: Profile,
                       frames: tuple[int, ...] | None = None) -> Measurement:
    """All probe runs for one artifact (web viewports measured concurrently)."""
    animated = modality == "animation"
    frame_list: tuple[int | None, ...] = (
        tuple(frames or DEFAULT_FRAMES_MS) if animated else (None,))
    web = modality == "web"
    m = Measurement(profile=profile.name, modality=modality, runs=[])
    parts = await asyncio.gather(*(
        _measure_viewport(host, html, vp, web, frame_list, profile, m)
        for vp in viewports_for(modality)))
    for runs in parts:
        m.runs.extend(runs)
    return m


async def probe_one(host: BrowserHost, html: str, modality: str, profile: Profile,
                    viewport: tuple[int, int], frame_ms: int | None,
                    after: AfterProbe) -> Measurement:
    """Probe one viewport at one frame and hand the live page to `after`."""
    m = Measurement(profile=profile.name, modality=modality, runs=[])
    m.runs = await _measure_viewport(host, html, viewport, modality == "web", (frame_ms,),
                                     profile, m, after)
    return m


async def _measure_viewport(host: BrowserHost, html: str, viewport: tuple[int, int], web: bool,
                            frames: tuple[int | None, ...], profile: Profile,
                            m: Measurement, after: AfterProbe | None = None) -> list[ProbeRun]:
    runs = [ProbeRun(viewport=viewport, frame_ms=f) for f in frames]
    init = [CLOCK_JS] if profile.controlled_time else []
    try:
        async with host.page(*viewport, init_scripts=init) as session:
            page = session.page
            page.on("pageerror", lambda exc: m.page_errors.append(str(exc)[:200]))
            await asyncio.wait_for(
                _load_and_probe(page, html, web, runs, profile), PROBE_TIMEOUT_S)
            if after is not None:
                await asyncio.wait_for(after(page, runs), PROBE_TIMEOUT_S)
            m.blocked.extend(u for u in session.blocked if u not in m.blocked)
    except Exception as exc:  # noqa: BLE001 - every failure becomes the probes' error
        message = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        for run in runs:
            if not run.done:
                run.error = message
    return runs


async def _load_and_probe(page: Any, html: str, web: bool, runs: list[ProbeRun],
                          profile: Profile) -> None:
    opts = {"web": web}
    if not profile.controlled_time:
        await page.set_content(html, wait_until="networkidle", timeout=LOAD_TIMEOUT_MS)
        if runs[0].frame_ms is None:
            await page.wait_for_timeout(80)
            await _probe(page, runs[0], profile, opts)
            return
        await page.wait_for_timeout(50)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        for run in runs:
            await asyncio.sleep(max(0.0, t0 + (run.frame_ms or 0) / 1000 - loop.time()))
            await _probe(page, run, profile, opts)
        return
    await page.set_content(html, wait_until="load", timeout=LOAD_TIMEOUT_MS)
    await page.evaluate("() => document.fonts.ready.then(() => true)")
    for run in runs:
        if run.frame_ms is None:
            await settle(page, SETTLE_MS)
        else:
            await advance_to(page, run.frame_ms)
        await _probe(page, run, profile, opts)


async def _probe(page: Any, run: ProbeRun, profile: Profile, opts: dict[str, Any]) -> None:
    result = await page.evaluate(profile.probe_js, opts)
    run.defects = result["defects"]
    run.skipped = result.get("skipped", [])
    run.done = True
