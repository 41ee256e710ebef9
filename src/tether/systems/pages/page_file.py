"""A page file as `tether measure` reads it: HTML text, or refused with the reason.

A browser renders whatever it is given: PNG bytes named `.html` become a page of
mojibake and plain text a page of one paragraph, and either measures as "clean". Neither
is a layout anyone wrote, so a file is measured only when it is text (UTF-8, or UTF-16
with its byte-order mark, or the charset its own `<meta charset>` declares, as a browser
would read it) with no NUL byte, and holds at least one element tag (`<p>`, `<div ...>`;
a comment or a doctype alone is no element).
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from tether.errors import ConfigError
from tether.textio import read_bytes

#: an element's start tag: `<` then a letter (a comment `<!--`, a doctype `<!` or a bare
#: `<` in text is none)
_TAG = re.compile(r"<[A-Za-z][A-Za-z0-9-]*[\s/>]")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))
HINT = "tether measure takes HTML pages (text with elements such as <div> or <p>)"


def _encoding(data: bytes) -> str:
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    declared = _META_CHARSET.search(data[:4096])
    if declared:
        name = declared.group(1).decode("ascii", "replace")
        try:
            return codecs.lookup(name).name
        except LookupError:
            pass  # an unknown declared charset: read as UTF-8 below
    return "utf-8"


def read_page(path: Path) -> str:
    """The page's text; ConfigError (one line naming the file) when it is no HTML page."""
    try:
        data = read_bytes(path)  # bounded; a FIFO or a device is refused, not waited on
    except ConfigError as exc:
        raise ConfigError(str(exc), hint=HINT) from None
    encoding = _encoding(data)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not a text file ({encoding} cannot decode byte "
                          f"{exc.start}: {data[exc.start:exc.start + 1]!r})", hint=HINT) from None
    if "\x00" in text:
        raise ConfigError(f"{path}: not a text file (it holds NUL bytes)", hint=HINT)
    if not _TAG.search(text):
        raise ConfigError(f"{path}: no HTML element in it (plain text?)", hint=HINT)
    return text
