"""Helpers for pages on disk: a PNG writer and a tiny inliner (test code, not tether's).

`inline(page)` turns a multi-file page into one self-contained document: stylesheets
become <style> (their url(...) references data: URLs), scripts become inline scripts,
images become data: URLs. A page measured from its folder must count exactly as its
inlined copy measured as a single document.
"""

from __future__ import annotations

import base64
import mimetypes
import re
import struct
import zlib
from pathlib import Path


def png(width: int, height: int, rgb: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    """A solid-colour RGB PNG of width x height."""
    def chunk(tag: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))
    row = b"\x00" + bytes(rgb) * width
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * height)) + chunk(b"IEND", b""))


def data_url(path: Path) -> str:
    kind = {".woff2": "font/woff2", ".ttf": "font/ttf"}.get(path.suffix) or \
        mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode()}"


def _css(text: str, base: Path) -> str:
    def sub(m: re.Match[str]) -> str:
        ref = m.group(2)
        return m.group(0) if ref.startswith("data:") else f"url({data_url(base / ref)})"
    return re.sub(r"""url\((['"]?)([^'")]+)\1\)""", sub, text)


def inline(page: Path) -> str:
    """The page with its stylesheets, scripts and images folded in."""
    base = page.parent
    html = page.read_text()

    def style(m: re.Match[str]) -> str:
        css = base / m.group(1)
        return f"<style>{_css(css.read_text(), css.parent)}</style>"

    def script(m: re.Match[str]) -> str:
        return f"<script>{(base / m.group(1)).read_text()}</script>"

    def image(m: re.Match[str]) -> str:
        return f'<img{m.group(1)}src="{data_url(base / m.group(2))}"'

    html = re.sub(r'<link rel="stylesheet" href="([^"]+)">', style, html)
    html = re.sub(r'<script src="([^"]+)"></script>', script, html)
    html = re.sub(r'<img([^>]*?)src="([^"]+)"', image, html)
    assert 'href="' not in html.split("<body")[0].replace('href="#', ""), "left a link"
    return html
