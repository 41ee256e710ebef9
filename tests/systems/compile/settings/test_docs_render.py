"""settings/docs_render.py: the noise step adds and clips in place, with the values of the
plain formula."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from tether.systems.compile.settings.docs_render import add_noise, make_spec, render


def _plain(page: Image.Image, sigma: float, seed: int) -> np.ndarray:
    noise = np.random.default_rng(seed).normal(0.0, sigma, page.size[::-1])
    return np.clip(np.asarray(page, dtype=np.float64) + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("seed", range(5))
def test_noise_in_place_has_the_plain_formulas_pixels(seed) -> None:
    rng = np.random.default_rng(seed)
    page = Image.fromarray(rng.integers(0, 256, (61, 47), dtype=np.uint8), mode="L")
    sigma = float(rng.uniform(4.0, 40.0))  # large enough to clip at both ends
    noisy = np.asarray(add_noise(page, sigma, seed))
    assert np.array_equal(noisy, _plain(page, sigma, seed))
    assert (noisy == 0).any() and (noisy == 255).any()


def test_a_page_is_a_pure_function_of_its_spec() -> None:
    spec = make_spec(np.random.default_rng(3))
    assert np.array_equal(np.asarray(render(spec)), np.asarray(render(dict(spec))))
    other = dict(spec, noise_seed=spec["noise_seed"] + 1)
    assert not np.array_equal(np.asarray(render(spec)), np.asarray(render(other)))
