"""PNG bytes for a grayscale page with noise in every pixel (a docs page).

PNG's row filters and deflate's string matching look for structure; a page with noise
added to every pixel (settings/docs_render.py) leaves them nothing to find, and only the
entropy coding compresses it. PIL's encoder tries every filter on every row and then
searches for matches: about 8 ms a docs page at zlib level 1, in the helper that must
keep ahead of a compile's calls (settings/page_worker.py). Unfiltered rows under zlib's
Huffman-only strategy take about 3 ms and come out about a fifth smaller (measured on
docs pages: 91 KB against 115-126 KB), which every call that shows the page also sends.
PNG is lossless: the pixels, and what OCR reads of them, are the ones drawn (a test
decodes them back with PIL).
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import numpy as np

__all__ = ["noisy_png_bytes"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_GRAY_8 = (8, 0, 0, 0, 0)  # bit depth, colour type (grayscale), compression, filter, interlace


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data)))


def noisy_png_bytes(image: Any) -> bytes:
    """An 8-bit grayscale PIL image ("L") as PNG bytes, rows unfiltered (filter type 0)
    and Huffman-coded only; ValueError for any other mode (those have structure that
    PIL's own encoder finds: settings/base.py png_bytes)."""
    if image.mode != "L":
        raise ValueError(f"noisy_png_bytes takes 8-bit grayscale (mode L), not {image.mode}")
    pixels = np.asarray(image, dtype=np.uint8)
    height, width = pixels.shape
    rows = np.zeros((height, width + 1), dtype=np.uint8)  # each row: filter type 0, pixels
    rows[:, 1:] = pixels
    packer = zlib.compressobj(1, zlib.DEFLATED, zlib.MAX_WBITS, 9, zlib.Z_HUFFMAN_ONLY)
    data = packer.compress(rows.tobytes()) + packer.flush()
    return (_SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, *_GRAY_8))
            + _chunk(b"IDAT", data) + _chunk(b"IEND", b""))
