"""A page file as `tether measure` reads it: HTML text, or refused naming the reason."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from tether.errors import ConfigError
from tether.systems.pages.page_file import read_page

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02"


@pytest.mark.parametrize(("data", "why"), [
    (PNG, "not a text file"),
    (b"<p>fine</p>\x00\x00binary tail", "NUL bytes"),
    (b"Meeting notes\n\n- ship on Friday\n- 3 < 4 and 5 > 2\n", "no HTML element"),
    (b"<!-- only a comment --><!doctype html>", "no HTML element"),
])
def test_what_is_no_html_page_is_refused_naming_why(tmp_path: Path, data: bytes, why: str):
    path = tmp_path / "page.html"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as exc:
        read_page(path)
    assert str(exc.value).startswith(f"{path}: ") and why in str(exc.value)


@pytest.mark.parametrize(("data", "text"), [
    (b"<p>plain</p>", "<p>plain</p>"),
    (codecs.BOM_UTF8 + "<p>caf\u00e9</p>".encode(), "<p>caf\u00e9</p>"),
    ("<p>\u00fcber</p>".encode("utf-16"), "<p>\u00fcber</p>"),
    (b'<meta charset="windows-1252"><p>caf\xe9</p>',
     '<meta charset="windows-1252"><p>caf\u00e9</p>'),
])
def test_html_is_read_as_a_browser_would(tmp_path: Path, data: bytes, text: str):
    path = tmp_path / "page.html"
    path.write_bytes(data)
    assert read_page(path) == text
