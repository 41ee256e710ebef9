"""Measurement lanes: one page per lane, reused artifact after artifact, replaced on failure.

Opening a context and page starts a renderer process: about 0.25 s and 0.6-0.7 s of CPU
per artifact on a 2-core machine, three quarters of what a measurement costs in the
default profile (benchmarks/geometry_throughput.py --steps). A lane keeps its page and
gives every artifact a new document in it instead, so the renderer starts once per
lane, not once per artifact.

What an artifact gets is still its own: a new document (a new window, new globals, no
timers or listeners of the one before) at an origin of its own (guard.py:
`http://a<n>.tether.invalid/`, n never reused), the guard and clock init scripts run
again. A lane goes straight from one artifact's document to the next, one navigation
per artifact: the origins are distinct but same-site, so the renderer process stays
(the navigation to about:blank in between that this replaced cost 50-80 ms of CPU, a
third of a measurement; benchmarks/geometry_throughput.py). When an artifact is done
(`scrub`) its lane

- retires the finished document (guard.py RETIRE_JS: timers, idle callbacks and frames
  cancelled, listeners, DOM and frames erased, workers terminated, and no new timer,
  window, request or worker from it), since it lives until the next one commits,
- closes every other page of the context (a popup could reach the next document
  through `window.opener`), and
- clears the context's cookies (a cookie set for the parent domain is visible to the
  next origin) and everything the artifact's origin stored (session and local
  storage, IndexedDB, cache storage) through the DevTools protocol; nothing else
  would ever see them, but a lane serves 200 artifacts.

The page session records nothing before the next artifact's own navigation request and
drops requests whose Origin or Referer names another artifact (page_session.py), and the
next document's guard clears the window name and the cookies it sees. Residue: a
cookie for the parent domain with another path, set by a request callback that was in
flight when the document was retired; `history.length` grows by one per artifact (no
page reads either to lay itself out).

A lane is never shared by two artifacts at once, so a page that hangs, crashes or never
settles fails only its own measurement: whatever went wrong (an exception, a timeout, a
cancellation, a crashed renderer, a scrub that did not finish) the lane's context is
closed and the next artifact gets a new one. A lane is also retired after `max_uses`
artifacts, so a renderer's memory does not grow without bound.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from tether.systems.pages.geometry.guard import RETIRE_JS

#: how long a scrub may take before the lane is discarded instead
SCRUB_TIMEOUT_S = 5.0
#: how long closing a discarded context may take (a renderer stuck in a loop is killed)
CLOSE_TIMEOUT_S = 10.0
#: artifacts per lane before it is retired (bounds a renderer's memory growth)
MAX_USES = 200


@dataclass
class Lane:
    """A reusable page: its session, viewport, and how often it served."""

    session: Any  # PageSession (page_session.py; not imported: lanes hold any session)
    viewport: tuple[int, int] = (1920, 1080)
    uses: int = 0
    crashed: bool = False
    cdp: Any = None


class LanePool:
    """Idle lanes per init-script set; `lane()` hands one out for one artifact."""

    def __init__(self, open_session: Callable[[tuple[str, ...]], Awaitable[Any]],
                 max_uses: int = MAX_USES) -> None:
        self._open_session = open_session
        self.max_uses = max_uses
        self._idle: dict[tuple[str, ...], list[Lane]] = {}
        #: lanes opened and lanes discarded because something went wrong (observable)
        self.opened = 0
        self.replaced = 0

    @property
    def idle(self) -> int:
        return sum(len(v) for v in self._idle.values())

    @asynccontextmanager
    async def lane(self, width: int, height: int,
                   scripts: tuple[str, ...] = ()) -> AsyncIterator[Any]:
        """A page at width x height with a fresh record, for one artifact."""
        lane = await self._take(scripts)
        lane.session.reset()
        ok = False
        try:
            if lane.viewport != (width, height):
                await lane.session.page.set_viewport_size({"width": width, "height": height})
                lane.viewport = (width, height)
            yield lane.session
            ok = True
        finally:
            lane.uses += 1
            # shielded: a cancelled measurement still gives back or discards its lane
            await asyncio.shield(self._release(lane, scripts, ok))

    async def _take(self, scripts: tuple[str, ...]) -> Lane:
        """An idle lane that is still alive, or a new one."""
        pool = self._idle.setdefault(scripts, [])
        while pool:
            lane = pool.pop()
            if not lane.crashed and not lane.session.page.is_closed():
                return lane
            self.replaced += 1  # died while idle (its renderer was killed)
            await self.discard(lane)
        return await self._new(scripts)

    async def _new(self, scripts: tuple[str, ...]) -> Lane:
        session = await self._open_session(scripts)
        lane = Lane(session=session)

        def crashed(_page: Any) -> None:
            lane.crashed = True
        session.page.on("crash", crashed)
        self.opened += 1
        return lane

    async def _release(self, lane: Lane, scripts: tuple[str, ...], ok: bool) -> None:
        if ok and not lane.crashed and lane.uses < self.max_uses:
            try:
                await asyncio.wait_for(self.scrub(lane), SCRUB_TIMEOUT_S)
            except Exception:  # noqa: BLE001 - a lane that cannot be cleaned is not reused
                ok = False
            else:
                if not lane.crashed:
                    self._idle.setdefault(scripts, []).append(lane)
                    return
        if not ok or lane.crashed:
            self.replaced += 1
        await self.discard(lane)

    async def scrub(self, lane: Lane) -> None:
        """Retire the finished artifact's document and clear what it stored."""
        page = lane.session.page
        origin = lane.session.origin
        await page.evaluate(RETIRE_JS)
        for other in list(page.context.pages):
            if other is not page:
                await other.close()
        if lane.cdp is None:
            lane.cdp = await page.context.new_cdp_session(page)
        # cookies (the context's: a parent-domain cookie reaches the next origin), then
        # local and session storage, IndexedDB, cache storage of the artifact's origin
        # (test_lanes.py checks each one is gone for the next artifact)
        await lane.cdp.send("Network.clearBrowserCookies")
        if origin is not None:
            await lane.cdp.send("Storage.clearDataForOrigin",
                                {"origin": origin, "storageTypes": "all"})

    @staticmethod
    async def discard(lane: Lane) -> None:
        try:
            await asyncio.wait_for(lane.session.context.close(), CLOSE_TIMEOUT_S)
        except Exception:  # noqa: BLE001 - a context that will not close dies with the browser
            pass

    def forget(self) -> None:
        """Drop every idle lane without closing it (its browser is gone)."""
        self._idle.clear()

    async def close(self) -> None:
        for pool in self._idle.values():
            for lane in pool:
                await self.discard(lane)
        self._idle.clear()
