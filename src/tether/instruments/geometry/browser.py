"""One headless Chromium per process, reused; a fresh context per artifact.

Playwright's async API runs on a private event loop in a daemon thread, so any
thread can submit work (`BrowserHost.run`) and several artifacts are measured
concurrently in the one browser (`BrowserHost.gather`, bounded by a semaphore).

Everything a page would fetch is blocked: each blocked URL is recorded on the page
session (the instrument reports it as an `external_resource` defect). Fonts are
pinned: the browser's fontconfig sees only the Debian fonts-dejavu-core and
fonts-liberation files, so text boxes do not depend on what else a machine has.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import tempfile
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tether.errors import TetherError

T = TypeVar("T")

CHROMIUM = os.environ.get("TETHER_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
#: Debian fonts-dejavu-core and fonts-liberation: the only fonts the browser may use.
DEJAVU_DIR = "/usr/share/fonts/truetype/dejavu"
DEJAVU_CORE = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf",
               "DejaVuSansMono-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf"]
LIBERATION_DIR = "/usr/share/fonts/truetype/liberation"
DEFAULT_CONCURRENCY = 4


class BrowserUnavailable(TetherError):
    """Chromium or Playwright is missing or failed to start."""

    hint = ("install Debian chromium, fonts-dejavu-core and fonts-liberation, and "
            "tether's browser extra (scripts/setup.sh does all three)")


def write_fontconfig(directory: Path) -> Path:
    """A fonts.conf whose only fonts are the pinned files; system aliases still apply.

    conf.d is included for its family aliases (Arial -> Liberation Sans, sans-serif
    -> DejaVu Sans); any font file it or another dir would add is rejected, because
    acceptfont wins over rejectfont.
    """
    directory.mkdir(parents=True, exist_ok=True)
    accepted = [f"{DEJAVU_DIR}/{name}" for name in DEJAVU_CORE] + [f"{LIBERATION_DIR}/*"]
    globs = "\n".join(f"      <glob>{g}</glob>" for g in accepted)
    conf = directory / "fonts.conf"
    conf.write_text(f"""<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>{DEJAVU_DIR}</dir>
  <dir>{LIBERATION_DIR}</dir>
  <cachedir>{directory / "cache"}</cachedir>
  <include ignore_missing="yes">/etc/fonts/conf.d</include>
  <selectfont>
    <rejectfont><glob>*</glob></rejectfont>
    <acceptfont>
{globs}
    </acceptfont>
  </selectfont>
</fontconfig>
""")
    return conf


@dataclass
class PageSession:
    """A page in its own context, and the URLs its content tried to fetch."""

    page: Any
    context: Any
    blocked: list[str] = field(default_factory=list)


class BrowserHost:
    """The process's browser: started lazily, closed at exit."""

    def __init__(self, executable: str = CHROMIUM, concurrency: int = DEFAULT_CONCURRENCY,
                 pin_fonts: bool = True, spares: int = 2) -> None:
        self.executable = executable
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
        env = dict(os.environ)
        if self.pin_fonts:
            env["FONTCONFIG_FILE"] = str(write_fontconfig(Path(self._tmp.name) / "fonts"))
        if self._pw is None:
            self._pw = await async_playwright().start()
        try:
            self._browser = await self._pw.chromium.launch(
                executable_path=self.executable, args=LAUNCH_ARGS, env=env, headless=True)
        except Exception as exc:  # noqa: BLE001 - any launch failure is the same to the user
            raise BrowserUnavailable(f"Chromium failed to start: {exc}".splitlines()[0]) from None
        self._sem = asyncio.Semaphore(self.concurrency)

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

    async def _open(self, scripts: tuple[str, ...]) -> PageSession:
        context = await self._browser.new_context(
            viewport={"width": 1920, "height": 1080}, device_scale_factor=1,
            is_mobile=False, has_touch=False, java_script_enabled=True)
        session = PageSession(page=None, context=context)

        async def block(route: Any) -> None:
            session.blocked.append(route.request.url)
            await route.abort()

        try:
            await context.route("**/*", block)
            for script in scripts:
                await context.add_init_script(script=script)
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
        env = dict(os.environ)
        if self.pin_fonts:
            env["FONTCONFIG_FILE"] = str(write_fontconfig(Path(self._tmp.name) / "fonts"))
        return await self._pw.chromium.launch(executable_path=self.executable, args=LAUNCH_ARGS,
                                              env=env, headless=True)

    def close(self) -> None:
        async def stop() -> None:
            for task in list(self._tasks):
                task.cancel()
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
