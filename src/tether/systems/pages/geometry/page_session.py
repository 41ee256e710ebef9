"""A guarded page: its context's routes serve the artifact (and its folder's files) and
record every way out its content tried (browser.py opens it, measure.py loads it)."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any

from tether.systems.pages.geometry.guard import (
    Blocked,
    artifact_origin,
    artifact_url,
    canonical,
)
from tether.systems.pages.geometry.local_files import (
    LocalFolder,
    MissingResource,
    content_type,
    is_local,
)

#: URL schemes that stay inside the browser (never a way out, never recorded).
LOCAL_SCHEMES = ("data:", "blob:", "about:", "javascript:", "chrome-error:")

#: artifact numbers: each load gets an origin no other document of the process had
_ARTIFACTS = itertools.count(1)


@dataclass
class PageSession:
    """A page in its own context, and the ways out its content tried.

    `blocked` holds each blocked request, WebSocket or hint once; `navigations` the
    top-level navigations to another document that reached the network layer (the
    guard cancels the others and reports them itself). `load` serves the artifact and,
    when given one, its folder (local_files.py): `served` lists the files the page
    loaded from it, `missing` the local resources it asked for that are not there.
    URLs on the artifact's own origin are recorded as under BOOTSTRAP_URL.

    A reused page (lanes.py) still shows the previous artifact's document until the
    new one commits, so nothing is recorded before the new artifact's own navigation
    request (`armed`), and a request whose Origin or Referer names another artifact's
    origin is that artifact's, not this one's.
    """

    page: Any
    context: Any
    blocked: list[Blocked] = field(default_factory=list)
    navigations: list[str] = field(default_factory=list)
    #: the artifact, until the page has been served it (once: see guard.py)
    html: str | None = None
    #: the folder the page's relative URLs are served from (None: a single document)
    folder: LocalFolder | None = None
    served: list[str] = field(default_factory=list)
    missing: list[MissingResource] = field(default_factory=list)
    #: the artifact's document URL and origin (guard.artifact_url), once loading
    url: str | None = None
    origin: str | None = None
    #: whether requests are this session's to record (a new page shows no one else's)
    armed: bool = True

    async def load(self, html: str, wait_until: str, timeout_ms: float,
                   folder: LocalFolder | None = None) -> None:
        """Open the artifact as the document at an origin of its own (served from
        memory, once)."""
        self.html = html
        self.folder = folder
        self.url = artifact_url(next(_ARTIFACTS))
        self.origin = self.url.rstrip("/")
        self.armed = False
        await self.page.goto(self.url, wait_until=wait_until, timeout=timeout_ms)

    def reset(self) -> None:
        """Forget the previous artifact's record (a lane's page serves many, one by one)."""
        self.blocked, self.navigations, self.served, self.missing = [], [], [], []
        self.html = self.folder = self.url = self.origin = None
        self.armed = False

    def canonical(self, url: str) -> str:
        return canonical(url, self.origin)

    def note(self, item: Blocked) -> None:
        if self.armed and item not in self.blocked:
            self.blocked.append(item)

    def _elsewhere(self, request: Any) -> bool:
        """Whether the request came from another artifact's document (its headers say)."""
        try:
            headers = request.headers
        except Exception:  # noqa: BLE001 - no headers: nothing to tell
            return False
        for name in ("origin", "referer"):
            found = artifact_origin(headers.get(name) or "")
            if found is not None and found != self.origin:
                return True
        return False

    def on_request(self, request: Any) -> None:
        """Record a request the page made (the route answers or aborts it; this says what)."""
        url = request.url
        if url.startswith(LOCAL_SCHEMES):
            return
        if not self.armed:
            # the artifact's own navigation: from here on, requests are this artifact's
            if url == self.url and request.is_navigation_request() and self._is_main_frame(request):
                self.armed = True
            return
        if url == self.url or self._elsewhere(request):
            # the artifact itself (a reload of it is the guard's to report), or a
            # request of the document before it
            return
        url = self.canonical(url)
        if request.is_navigation_request() and self._is_main_frame(request):
            if url not in self.navigations:
                self.navigations.append(url)
            return
        if is_local(url) and self.folder is not None:
            found = self.folder.lookup(url)
            if found.verdict == "served":
                if found.rel not in self.served:
                    self.served.append(found.rel)
                return
            if found.verdict == "missing":
                item = MissingResource(request.resource_type, url, found.rel, found.reason)
                if item not in self.missing:
                    self.missing.append(item)
                return
        # the network, a local URL with no folder served, or one resolving outside it
        self.note(Blocked(request.resource_type, url))

    async def answer(self, route: Any) -> None:
        """The route: the artifact once, its folder's files, nothing else."""
        request = route.request
        url = request.url
        if url == self.url and self.html is not None:
            html, self.html = self.html, None
            await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html)
            return
        local = self.canonical(url)
        if (self.folder is not None and local != url and is_local(local)
                and not (request.is_navigation_request() and self._is_main_frame(request))):
            found = self.folder.lookup(local)
            if found.verdict == "served" and found.path is not None:
                try:
                    body = await asyncio.to_thread(found.path.read_bytes)
                except OSError:
                    await route.abort()
                    return
                await route.fulfill(status=200, content_type=content_type(found.path),
                                    body=body)
                return
        await route.abort()

    def _is_main_frame(self, request: Any) -> bool:
        try:
            frame = request.frame
        except Exception:  # noqa: BLE001 - a service worker's request has no frame
            return False
        return frame.parent_frame is None and frame.page is self.page
