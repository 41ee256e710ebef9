"""One headless Chromium per process, reused; a fresh context per artifact.

Playwright's async API runs on a private event loop in a daemon thread, so any
thread can submit work (`BrowserHost.run`) and several artifacts are measured
concurrently in the one browser (`BrowserHost.gather`, bounded by a semaphore).

Pages are untrusted and nothing they try may leave the browser. Three layers stop
it, each enough on its own for HTTP and WebSocket: Chromium runs in its own network
namespace with no route anywhere (netns.py), every host name and address resolves to
nothing (--host-resolver-rules), and the context aborts every request and WebSocket
and blocks service workers. The in-page guard (guard.py) stops WebRTC and navigations
away from the artifact. Every attempt is recorded on the page session (the instrument
reports it as an `external_resource` or `navigation` defect). Fonts are pinned: the
browser's fontconfig sees only the Debian fonts-dejavu-core and fonts-liberation
files, so text boxes do not depend on what else a machine has.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import tempfile
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from tether.errors import TetherError
from tether.systems.pages.geometry.fonts import write_fontconfig
from tether.systems.pages.geometry.guard import GUARD_JS, Blocked
from tether.systems.pages.geometry.lanes import MAX_USES, LanePool
from tether.systems.pages.geometry.launcher import launcher
from tether.systems.pages.geometry.netns import NoNetworkNamespace, isolated_executable
from tether.systems.pages.geometry.page_session import PageSession

T = TypeVar("T")

CHROMIUM = os.environ.get("TETHER_CHROMIUM", "/usr/bin/chromium")
#: --host-resolver-rules: every host (IP literals included) resolves to nothing, so the
#: network stack cannot open a connection even for requests no route sees (beacons,
#: prefetches, workers' WebSockets), and Chromium makes no DNS query of its own.
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run",
               "--host-resolver-rules=MAP * ~NOTFOUND",
               # Merged with Playwright's own --disable-features by the launcher script
               # (launcher.py); CPU from benchmarks/geometry_throughput.py.
               # SpareRendererForSitePerProcess: Chromium keeps one spare renderer warm for
               # the browser context that last asked for one; with two lanes or more (one
               # context each) every navigation discarded the other context's spare and
               # forked a new one, about 40% of the CPU of a measurement.
               # RenderDocument: a new frame host (and Blink frame) for every document,
               # even within one site and process; without it a lane's navigation from one
               # artifact to the next costs about 43 ms of CPU instead of 58 (the new
               # document, window and globals are the same either way).
               # WebUIOmniboxPopup, WebUIOmniboxAimPopup: headless Chromium 156 gives every
               # browser context a window whose omnibox popup is a WebUI page
               # (chrome://omnibox-popup.top-chrome/) in a renderer of its own, 100-650 ms
               # of CPU per new context and busy while the artifact loads; without it
               # opening a context + page costs about 150 ms of CPU instead of 500-900.
               "--disable-features=SpareRendererForSitePerProcess,RenderDocument,"
               "WebUIOmniboxPopup,WebUIOmniboxAimPopup"]
DEFAULT_CONCURRENCY = 4
#: V8 heap limit per renderer: a page that allocates without end crashes its own
#: renderer at this size (its measurement is an error) instead of taking the machine's
#: memory; layout never needs a fraction of it.
JS_HEAP_MB = 1024


class BrowserUnavailable(TetherError):
    """Chromium or Playwright is missing or failed to start."""

    hint = ("install Debian chromium, fonts-dejavu-core and fonts-liberation, and "
            "tether's browser extra (scripts/setup.sh does all three)")


class BrowserHost:
    """The process's browser: started lazily, closed at exit."""

    def __init__(self, executable: str = CHROMIUM, concurrency: int = DEFAULT_CONCURRENCY,
                 pin_fonts: bool = True, spares: int = 2,
                 network_namespace: bool = True, js_heap_mb: int = JS_HEAP_MB,
                 max_uses: int = MAX_USES) -> None:
        self.executable = executable
        #: start Chromium in a network namespace of its own (False only to test the
        #: in-browser layers alone)
        self.network_namespace = network_namespace
        self._launch_path: str | None = None
        self.concurrency = concurrency
        self.pin_fonts = pin_fonts
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="tether-browser")
        self._thread.start()
        self._lock = threading.Lock()
        self._pw: Any = None
        self._browser: Any = None
        self._sem: asyncio.Semaphore | None = None
        #: ready pages per init-script set (see `page`), and how many are being opened.
        self.spares = spares
        self._spares: dict[tuple[str, ...], list[PageSession]] = {}
        self._filling: dict[tuple[str, ...], int] = {}
        self._tasks: set[asyncio.Future[None]] = set()
        #: pages open at once now, and the most ever (concurrency is observable).
        self.in_flight = 0
        self.max_in_flight = 0
        self._tmp = tempfile.TemporaryDirectory(prefix="tether-browser-")
        self.js_heap_mb = js_heap_mb
        #: reusable pages for measurements (lanes.py)
        self.lanes = LanePool(self._open, max_uses=max_uses)

    # -- running work on the browser's loop -------------------------------------------
    def run(self, coro: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
        """Run a coroutine on the browser loop and wait for its result."""
        try:
            self._ensure_started()
        except BaseException:
            coro.close()  # never scheduled: close it so it is not reported as un-awaited
            raise
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout_s)

    def gather(self, fn: Callable[[Any], Awaitable[T]],
               items: Iterable[Any]) -> list[T | Exception]:
        """fn(item) for every item, concurrently; an item's exception is its result."""
        async def all_of() -> list[Any]:
            return await asyncio.gather(*(fn(i) for i in items), return_exceptions=True)
        return self.run(all_of())

    def _ensure_started(self) -> None:
        with self._lock:
            if self._browser is None or not self._browser.is_connected():
                asyncio.run_coroutine_threadsafe(self._start(), self._loop).result()

    async def _start(self) -> None:
        try:
            from playwright.async_api import async_playwright
        except ImportError as exc:
            raise BrowserUnavailable(f"playwright is not installed ({exc})") from None
        if not Path(self.executable).exists():
            raise BrowserUnavailable(f"no Chromium at {self.executable}")
        if self._pw is None:
            self._pw = await async_playwright().start()
        try:
            self._browser = await self._launch()
        except NoNetworkNamespace as exc:
            raise BrowserUnavailable(
                f"Chromium would have network access: {exc}", hint=(
                    "the browser runs in a network namespace of its own: run as root or "
                    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1"
                    " / user.max_user_namespaces > 0)")) from None
        except Exception as exc:  # noqa: BLE001 - any launch failure is the same to the user
            raise BrowserUnavailable(f"Chromium failed to start: {exc}".splitlines()[0]) from None
        self._sem = asyncio.Semaphore(self.concurrency)
        self.lanes.forget()  # lanes of a browser that died are gone with it

    async def _launch(self) -> Any:
        """Launch Chromium with the pinned fonts, in its own network namespace."""
        env = dict(os.environ)
        if self.pin_fonts:
            env["FONTCONFIG_FILE"] = str(write_fontconfig(Path(self._tmp.name) / "fonts"))
        if self._launch_path is None:
            self._launch_path = (str(isolated_executable(self.executable,
                                                         Path(self._tmp.name) / "bin"))
                                 if self.network_namespace
                                 else str(launcher(self.executable, Path(self._tmp.name) / "bin")))
        args = [*LAUNCH_ARGS, f"--js-flags=--max-old-space-size={self.js_heap_mb}"]
        return await self._pw.chromium.launch(executable_path=self._launch_path,
                                              args=args, env=env, headless=True)

    # -- pages --------------------------------------------------------------------------
    @asynccontextmanager
    async def page(self, width: int, height: int, init_scripts: Iterable[str] = ()):
        """A fresh context and page at width x height, network blocked; closed after.

        Opening a page starts a renderer process, the slowest step of a measurement, so
        up to `spares` ready pages per init-script set are kept warm: each page handed
        out is replaced in the background while it is being measured. A spare is used
        once and never sees another artifact.
        """
        assert self._sem is not None and self._browser is not None
        scripts = tuple(init_scripts)
        async with self._sem:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            pool = self._spares.setdefault(scripts, [])
            session = pool.pop() if pool else None
            try:
                if session is None:
                    session = await self._open(scripts)
                self._refill(scripts)
                if (width, height) != (1920, 1080):
                    await session.page.set_viewport_size({"width": width, "height": height})
                yield session
            finally:
                self.in_flight -= 1
                if session is not None:
                    await session.context.close()

    def set_concurrency(self, n: int) -> None:
        """Change how many pages may be in flight (between batches, not during one)."""
        if n < 1:
            raise ValueError("concurrency must be at least 1")
        if self.in_flight:
            raise RuntimeError("cannot change concurrency while pages are in flight")
        self.concurrency = n
        if self._sem is not None:
            self._sem = asyncio.Semaphore(n)

    @asynccontextmanager
    async def lane(self, width: int, height: int, init_scripts: Iterable[str] = ()):
        """A reused page for one artifact's measurement (lanes.py), at most `concurrency`
        at once: a new document per artifact, the page replaced when anything fails."""
        assert self._sem is not None and self._browser is not None
        async with self._sem:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                async with self.lanes.lane(width, height, tuple(init_scripts)) as session:
                    yield session
            finally:
                self.in_flight -= 1

    async def _open(self, scripts: tuple[str, ...]) -> PageSession:
        return await self.open_session(self._browser, scripts)

    @staticmethod
    async def open_session(browser: Any, scripts: Iterable[str] = ()) -> PageSession:
        """A new context and page (about:blank) in `browser`, guarded.

        Every request is aborted but the artifact at its URL (served once by
        `PageSession.load`) and the files of the folder `load` was given, if any
        (`PageSession.answer`); every WebSocket is closed; service
        workers are blocked; the guard runs before `scripts` (one init script: each is a
        round trip to the browser).
        """
        context = await browser.new_context(
            viewport={"width": 1920, "height": 1080}, device_scale_factor=1,
            is_mobile=False, has_touch=False, java_script_enabled=True,
            service_workers="block")
        session = PageSession(page=None, context=context)

        async def close_socket(ws: Any) -> None:
            session.note(Blocked("websocket", ws.url))
            await ws.close(code=1008, reason="blocked: artifacts must not use the network")

        try:
            context.on("request", session.on_request)
            await context.route("**/*", session.answer)
            await context.route_web_socket("**/*", close_socket)
            await context.add_init_script(script="\n".join((GUARD_JS, *scripts)))
            session.page = await context.new_page()
        except BaseException:
            await context.close()
            raise
        return session

    def _refill(self, scripts: tuple[str, ...]) -> None:
        pending = self._filling.get(scripts, 0)
        if len(self._spares.get(scripts, [])) + pending >= self.spares:
            return
        self._filling[scripts] = pending + 1

        async def fill() -> None:
            try:
                session = await self._open(scripts)
                self._spares.setdefault(scripts, []).append(session)
            except Exception:  # noqa: BLE001 - a failed spare is simply not there
                pass
            finally:
                self._filling[scripts] -= 1
        task = asyncio.ensure_future(fill())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def fresh_browser(self) -> Any:
        """A separately launched browser (the benchmark's per-artifact baseline)."""
        return await self._launch()

    def close(self) -> None:
        async def stop() -> None:
            for task in list(self._tasks):
                task.cancel()
            await self.lanes.close()
            for pool in self._spares.values():
                for session in pool:
                    await session.context.close()
            self._spares.clear()
            if self._browser is not None:
                await self._browser.close()
            if self._pw is not None:
                await self._pw.stop()
        if self._thread.is_alive():
            try:
                asyncio.run_coroutine_threadsafe(stop(), self._loop).result(30)
            except Exception:  # noqa: BLE001 - closing at exit is best effort
                pass
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._browser = self._pw = None
        self._tmp.cleanup()


_HOST: BrowserHost | None = None
_HOST_PID: int | None = None
_HOST_LOCK = threading.Lock()


def get_browser_host() -> BrowserHost:
    """The process's shared BrowserHost (a forked child gets its own)."""
    global _HOST, _HOST_PID
    with _HOST_LOCK:
        if _HOST is None or _HOST_PID != os.getpid():
            _HOST = BrowserHost()
            _HOST_PID = os.getpid()
            atexit.register(_HOST.close)
        return _HOST
