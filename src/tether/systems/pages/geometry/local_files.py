"""A page's own folder, served from the synthetic origin (`tether measure` on a file).

A practitioner's page is a folder: `index.html` beside `style.css`, images, fonts and
scripts. The browser never gets a `file://` URL (a page could read any local path with
it); instead the page is the document at its synthetic origin (guard.py), and the
host's request route answers `<origin>/<path>` from this folder, deciding on the URL as
reports write it, `http://tether.invalid/<path>` (guard.canonical). Every answer is
decided here:

- the URL's path is percent-decoded, joined to the folder and resolved (symlinks
  followed); only a regular file whose resolved path lies inside the resolved folder is
  served, with its content type from `mimetypes` (plus the web types it lacks);
- a path that resolves outside the folder (`..%2f`, an absolute path, a symlink leaving
  the folder) is `outside`: the route aborts it and it is reported like any other
  blocked request (`external_resource`), never read;
- a path inside the folder with no file behind it is `missing` (a `missing_resource`
  defect): the page refers to a resource it does not ship.

Model-written artifacts in runs are single documents and get no folder: their relative
URLs are blocked and reported as `external_resource`.
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlsplit

from tether.systems.pages.geometry.guard import BOOTSTRAP_URL

#: the synthetic origin's scheme and host (BOOTSTRAP_URL is its root document)
_ORIGIN = urlsplit(BOOTSTRAP_URL)
#: larger files are not served (they are reported missing, with the reason)
MAX_FILE_BYTES = 64 * 1024 * 1024
#: web types Python's mimetypes table may lack on some systems
_EXTRA_TYPES = {".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf",
                ".otf": "font/otf", ".mjs": "text/javascript", ".wasm": "application/wasm",
                ".webp": "image/webp", ".avif": "image/avif", ".svg": "image/svg+xml",
                ".json": "application/json", ".css": "text/css", ".js": "text/javascript"}
_TEXT_TYPES = ("text/", "application/json", "image/svg+xml", "application/javascript")

Verdict = Literal["served", "missing", "outside"]


def is_local(url: str) -> bool:
    """Whether `url` is on the synthetic origin (the page's own relative URLs land here)."""
    parts = urlsplit(url)
    return (parts.scheme, parts.netloc) == (_ORIGIN.scheme, _ORIGIN.netloc)


def content_type(path: Path) -> str:
    """The Content-Type to serve `path` with (text types as UTF-8)."""
    kind = _EXTRA_TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0]
    kind = kind or "application/octet-stream"
    return f"{kind}; charset=utf-8" if kind.startswith(_TEXT_TYPES) else kind


@dataclass(frozen=True)
class MissingResource:
    """A local resource the page asked for that its folder does not have."""

    via: str  #: the request's resource type (stylesheet, image, font, script, fetch...)
    url: str
    path: str  #: the path relative to the folder, decoded
    reason: str


@dataclass(frozen=True)
class Lookup:
    """What a local URL names: `rel` is its decoded path as the page wrote it."""

    verdict: Verdict
    rel: str
    path: Path | None = None
    reason: str = ""


class LocalFolder:
    """The folder whose files a page may load (resolved once, at construction)."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).resolve(strict=True)
        if not self.root.is_dir():
            raise NotADirectoryError(f"{root} is not a folder")

    def lookup(self, url: str) -> Lookup:
        """Decide a request for `url` (a local URL: see `is_local`)."""
        # decoded, so "..%2F" is a parent step here even though the browser kept it; the
        # leading slashes go, so "//etc/passwd" names etc/passwd below the folder
        rel = unquote(urlsplit(url).path).lstrip("/")
        try:
            # resolve() follows every symlink and "..": containment is checked on the result
            target = (self.root / rel).resolve()
        except (OSError, RuntimeError, ValueError):  # symlink loops, NUL bytes
            return Lookup("outside", rel, reason="the path cannot be resolved")
        if not target.is_relative_to(self.root):
            return Lookup("outside", rel, reason=f"resolves outside {self.root}")
        if not target.is_file():
            why = "a folder, not a file" if target.is_dir() else "no such file"
            return Lookup("missing", rel, target, reason=why)
        if target.stat().st_size > MAX_FILE_BYTES:
            return Lookup("missing", rel, target,
                          reason=f"larger than {MAX_FILE_BYTES // 2**20} MiB, not served")
        return Lookup("served", rel, target)
