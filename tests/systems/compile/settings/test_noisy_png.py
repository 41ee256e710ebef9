"""settings/noisy_png.py: a noisy grayscale page as PNG, unfiltered and Huffman-coded."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from tether.systems.compile.settings.base import png_bytes
from tether.systems.compile.settings.docs_render import make_spec, render
from tether.systems.compile.settings.noisy_png import noisy_png_bytes


def _decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("seed", range(4))
def test_a_docs_page_decodes_to_the_pixels_drawn(seed) -> None:
    page = render(make_spec(np.random.default_rng(seed)))
    data = noisy_png_bytes(page)
    back = _decoded(data)
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and back.format == "PNG"
    assert back.mode == "L" and back.size == page.size
    assert np.array_equal(np.asarray(back), np.asarray(page))


@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (5, 1), (37, 53)])
def test_any_grayscale_size_and_value_round_trips(shape) -> None:
    pixels = np.random.default_rng(sum(shape)).integers(0, 256, shape, dtype=np.uint8)
    pixels.flat[0], pixels.flat[-1] = 0, 255  # both ends of the range
    back = _decoded(noisy_png_bytes(Image.fromarray(pixels, mode="L")))
    assert np.array_equal(np.asarray(back), pixels)


def test_every_chunk_checks_out() -> None:
    """PIL's verify() reads each chunk's CRC; a wrong length or CRC fails it."""
    data = noisy_png_bytes(render(make_spec(np.random.default_rng(9))))
    Image.open(io.BytesIO(data)).verify()
    broken = bytearray(data)
    broken[60] ^= 0xFF  # inside IDAT's data
    with pytest.raises(SyntaxError):
        Image.open(io.BytesIO(bytes(broken))).verify()


def test_a_noisy_page_is_smaller_than_pils_encoding_of_it() -> None:
    """What the module docstring claims of docs pages (every call that shows one
    sends it)."""
    for seed in range(3):
        page = render(make_spec(np.random.default_rng(seed)))
        assert len(noisy_png_bytes(page)) < 0.9 * len(png_bytes(page))


@pytest.mark.parametrize("mode", ["RGB", "1", "I", "LA"])
def test_other_modes_are_refused(mode) -> None:
    with pytest.raises(ValueError, match="mode L"):
        noisy_png_bytes(Image.new(mode, (4, 4)))
