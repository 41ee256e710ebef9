"""Render one HTML artifact and run a profile's probe at each viewport and frame.

The artifact is loaded as the page's document (PageSession.load: served at an
origin of its own, guard.artifact_url, so the guard can cancel navigations away; the
study wrote it into about:blank with set_content, where the Navigation API is off).
Reference profile: the study's procedure (load, wait for network idle, wait 80 ms;
animations: wait 50 ms, then wall-clock waits until each frame time).
Default profile: virtual time (temporal.py): load, fonts ready, then the clock is
advanced to each frame time (static pages: settled), so results do not depend on
machine speed.

A failure at one viewport or frame is kept as that probe's error; the instrument
turns any error into an error observation, never into "no defects". A timeout names
the step that was running and the limit. The probe runs only in the artifact's own
document (guard.py): a page that got itself replaced by another document is an
error, never the other document's measurement.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether.systems.pages.geometry.browser import BrowserHost
from tether.systems.pages.geometry.guard import Blocked, guarded_probe
from tether.systems.pages.geometry.local_files import LocalFolder, MissingResource
from tether.systems.pages.geometry.page_session import PageSession
from tether.systems.pages.geometry.profiles import (
    DEFAULT_FRAMES_MS,
    Profile,
    viewports_for,
)
from tether.systems.pages.geometry.temporal import CLOCK_JS, advance_to, settle

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
    #: every way out the page tried (once each), and the documents it tried to leave for
    blocked: list[Blocked] = field(default_factory=list)
    navigations: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    #: with a folder served: the local files the page loaded, and those it lacks
    served: list[str] = field(default_factory=list)
    missing: list[MissingResource] = field(default_factory=list)

    def record(self, session: PageSession, guard: dict[str, Any] | None) -> None:
        """Add what the host's routes and the page's guard saw (each once)."""
        found = list(session.blocked) + [Blocked(b["via"], session.canonical(b["url"]))
                                         for b in (guard or {}).get("blocked", [])]
        self.blocked.extend(b for b in dict.fromkeys(found) if b not in self.blocked)
        urls = list(session.navigations) + [session.canonical(u)
                                            for u in (guard or {}).get("navigations", [])]
        self.navigations.extend(u for u in dict.fromkeys(urls) if u not in self.navigations)
        self.served.extend(p for p in session.served if p not in self.served)
        # a resource is missing once, however many viewports asked for it
        seen = {x.path for x in self.missing}
        for item in session.missing:
            if item.path not in seen:
                seen.add(item.path)
                self.missing.append(item)

    @property
    def error(self) -> str | None:
        errors = [f"{r.location}: {r.error}" for r in self.runs if r.error]
        return "; ".join(errors) if errors else None


#: called with the page and its probe runs while the page is still open (the overlay).
AfterProbe = Callable[[Any, list[ProbeRun]], Awaitable[None]]


class ForeignDocument(RuntimeError):
    """The page's document is no longer the artifact (a navigation got past the guard)."""


class StepTimeout(RuntimeError):
    """A viewport's measurement ran past PROBE_TIMEOUT_S; the message names the step."""


class Progress:
    """The step a viewport's measurement is in, so a timeout can say which one."""

    def __init__(self) -> None:
        self.step = "opening a page"
        #: the guard's record from the latest probe
        self.guard: dict[str, Any] | None = None


def timeout_message(step: str, limit: str) -> str:
    return f"{step} timed out (limit: {limit})"


async def measure_html(host: BrowserHost, html: str, modality: str, profile: Profile,
                       frames: tuple[int, ...] | None = None,
                       base_dir: Path | None = None, *, timeout_s: float = PROBE_TIMEOUT_S,
                       entrance: bool = False) -> Measurement:
    """All probe runs for one artifact (web viewports measured concurrently).

    `base_dir`: the folder the page's relative URLs are served from (local_files.py);
    None (model-written artifacts) serves nothing but the document. `timeout_s`: how long
    one viewport's measurement may take, loading included. `entrance` (default profile,
    static pages): also measure the first frame (t = 0, where entrance animations start)
    and keep the defects found only there, located "@ 0ms".
    """
    folder = LocalFolder(base_dir) if base_dir is not None else None
    animated = modality == "animation"
    frame_list: tuple[int | None, ...] = (
        tuple(frames or DEFAULT_FRAMES_MS) if animated else ((0, None) if entrance else (None,)))
    web = modality == "web"
    m = Measurement(profile=profile.name, modality=modality, runs=[])
    parts = await asyncio.gather(*(
        _measure_viewport(host, html, vp, web, frame_list, profile, m, folder=folder,
                          timeout_s=timeout_s)
        for vp in viewports_for(modality)))
    for runs in parts:
        if entrance and not animated:
            _keep_entrance_only(runs)
        m.runs.extend(runs)
    return m


def _keep_entrance_only(runs: list[ProbeRun]) -> None:
    """Drop from the first frame's run the defects the settled page has too (same kind,
    same elements): what is left is what only the entrance shows."""
    first, settled = runs[0], runs[-1]
    if first.frame_ms != 0 or settled.frame_ms is not None or first is settled:
        return

    def key(d: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
        return d["kind"], tuple(sorted(e.get("selector", "") for e in d.get("elements", [])))
    later = {key(d) for d in settled.defects}
    first.defects = [d for d in first.defects if key(d) not in later]


async def probe_one(host: BrowserHost, html: str, modality: str, profile: Profile,
                    viewport: tuple[int, int], frame_ms: int | None,
                    after: AfterProbe, base_dir: Path | None = None, *,
                    timeout_s: float = PROBE_TIMEOUT_S) -> Measurement:
    """Probe one viewport at one frame and hand the live page to `after`."""
    m = Measurement(profile=profile.name, modality=modality, runs=[])
    folder = LocalFolder(base_dir) if base_dir is not None else None
    m.runs = await _measure_viewport(host, html, viewport, modality == "web", (frame_ms,),
                                     profile, m, after, folder, timeout_s=timeout_s)
    return m


async def _measure_viewport(host: BrowserHost, html: str, viewport: tuple[int, int], web: bool,
                            frames: tuple[int | None, ...], profile: Profile,
                            m: Measurement, after: AfterProbe | None = None,
                            folder: LocalFolder | None = None, *,
                            timeout_s: float = PROBE_TIMEOUT_S) -> list[ProbeRun]:
    runs = [ProbeRun(viewport=viewport, frame_ms=f) for f in frames]
    init = [CLOCK_JS] if profile.controlled_time else []
    progress = Progress()
    session: PageSession | None = None
    try:
        # a lane: a reused page, a new document for this artifact, replaced on failure
        async with host.lane(*viewport, init_scripts=init) as session:
            page = session.page

            def page_error(exc: Any) -> None:
                if session.armed:  # before, the page still shows the previous artifact
                    m.page_errors.append(str(exc)[:200])
            page.on("pageerror", page_error)
            try:
                await _within(_load_and_probe(session, html, web, runs, profile, progress,
                                              folder, _load_limit_ms(timeout_s)),
                              progress, timeout_s)
                if after is not None:
                    progress.step = "drawing the overlay"
                    await _within(after(page, runs), progress, timeout_s)
            finally:
                # the page serves the next artifact: its errors are not this one's
                page.remove_listener("pageerror", page_error)
                m.record(session, progress.guard)
    except Exception as exc:  # noqa: BLE001 - every failure becomes the probes' error
        message = _failure(exc, progress, _load_limit_ms(timeout_s))
        for run in runs:
            if not run.done:
                run.error = message
    return runs


def _load_limit_ms(timeout_s: float) -> float:
    """Playwright's limit on loading: LOAD_TIMEOUT_MS, raised in proportion to a timeout
    longer than the default (a slow page then gets to load); a shorter timeout is the
    viewport's own limit, which then stops the load and names itself."""
    return LOAD_TIMEOUT_MS * max(1.0, timeout_s / PROBE_TIMEOUT_S)


async def _within(work: Awaitable[None], progress: Progress,
                  timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Run one viewport's work under `timeout_s`; a timeout names the step it hit."""
    try:
        await asyncio.wait_for(work, timeout_s)
    except TimeoutError:
        raise StepTimeout(timeout_message(
            progress.step, f"{timeout_s:g} s per viewport")) from None


def _failure(exc: Exception, progress: Progress, load_ms: float = LOAD_TIMEOUT_MS) -> str:
    """One line for a failed viewport: what timed out, or the error as Playwright said it."""
    if isinstance(exc, (StepTimeout, ForeignDocument)):
        return str(exc)
    first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
    if type(exc).__name__ == "TimeoutError":  # Playwright's own limit on one call
        if progress.step == "loading the page":
            return timeout_message(progress.step, f"{load_ms / 1000:g} s")
        return timeout_message(progress.step, first or "Playwright's default")
    return f"{type(exc).__name__}: {first}"


async def _load_and_probe(session: PageSession, html: str, web: bool, runs: list[ProbeRun],
                          profile: Profile, progress: Progress,
                          folder: LocalFolder | None = None,
                          load_ms: float = LOAD_TIMEOUT_MS) -> None:
    page = session.page
    args = {"opts": {"web": web}}
    progress.step = "loading the page"
    if not profile.controlled_time:
        await session.load(html, "networkidle", load_ms, folder)
        if runs[0].frame_ms is None:
            progress.step = "waiting 80 ms after load"
            await page.wait_for_timeout(80)
            await _probe(page, runs[0], profile, args, progress)
            return
        progress.step = "waiting 50 ms after load"
        await page.wait_for_timeout(50)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        for run in runs:
            progress.step = f"waiting for frame {run.frame_ms} ms"
            await asyncio.sleep(max(0.0, t0 + (run.frame_ms or 0) / 1000 - loop.time()))
            await _probe(page, run, profile, args, progress)
        return
    await session.load(html, "load", load_ms, folder)
    progress.step = "waiting for fonts"
    await page.evaluate("() => document.fonts.ready.then(() => true)")
    for run in runs:
        if run.frame_ms is None:
            progress.step = f"running the page's timers for {SETTLE_MS} ms (virtual time)"
            await settle(page, SETTLE_MS)
        else:
            progress.step = f"advancing the clock to frame {run.frame_ms} ms"
            await advance_to(page, run.frame_ms)
        await _probe(page, run, profile, args, progress)


async def _probe(page: Any, run: ProbeRun, profile: Profile, args: dict[str, Any],
                 progress: Progress) -> None:
    progress.step = "evaluating the layout probe"
    result = await page.evaluate(guarded_probe(profile.probe_js), args)
    if "foreign" in result:
        raise ForeignDocument(
            f"the page replaced itself with another document ({result['foreign'][:120]}); "
            "only the artifact's own document is measured")
    progress.guard = result["guard"]
    run.defects = result["defects"]
    run.skipped = result.get("skipped", [])
    run.done = True
