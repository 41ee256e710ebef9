"""Appendix L metrics against values computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("cv2")
pytest.importorskip("skimage")

from tether.errors import ConfigError  # noqa: E402
from tether.systems.scene import metrics  # noqa: E402


def flat(value: float, size: int = 16) -> np.ndarray:
    return np.full((size, size, 3), value, dtype=np.float64)


def test_pl_and_psnr_of_flat_images() -> None:
    # every channel differs by 0.5: MSE 0.25, PSNR -10 log10 0.25 = 6.0206 dB
    assert metrics.pl(flat(0.5), flat(0.0)) == pytest.approx(0.25)
    assert metrics.psnr(flat(0.5), flat(0.0)) == pytest.approx(6.020599913)
    # one channel of one pixel of 16x16x3 off by 1: MSE 1/768
    img = flat(0.0)
    img[3, 4, 1] = 1.0
    assert metrics.pl(img, flat(0.0)) == pytest.approx(1 / 768)
    assert metrics.psnr(img, flat(0.0)) == pytest.approx(10 * math.log10(768))


def test_psnr_is_capped_at_100_db_for_identical_images() -> None:
    assert metrics.psnr(flat(0.3), flat(0.3)) == 100.0
    assert metrics.psnr(flat(0.3), flat(0.3) + 1e-6) == 100.0  # MSE 1e-12 <= 1e-10
    assert metrics.psnr(flat(0.3), flat(0.3) + 1e-4) == pytest.approx(80.0)


def test_ssim_of_flat_images_is_the_luminance_term() -> None:
    # no variance: SSIM = (2ab + C1) / (a^2 + b^2 + C1) with C1 = (0.01 * 1)^2
    c1 = 1e-4
    expected = (2 * 0.5 * 0.25 + c1) / (0.5**2 + 0.25**2 + c1)
    assert metrics.ssim(flat(0.5), flat(0.25)) == pytest.approx(expected, rel=1e-9)
    assert metrics.ssim(flat(0.5), flat(0.5)) == pytest.approx(1.0)


def dots(*points: tuple[int, int]) -> np.ndarray:
    m = np.zeros((32, 32), dtype=bool)
    for p in points:
        m[p] = True
    return m


def test_edge_f1_tolerance_is_two_pixels_chebyshev() -> None:
    assert metrics.edge_f1_maps(dots((10, 10)), dots((12, 12))) == 1.0  # distance 2
    assert metrics.edge_f1_maps(dots((10, 10)), dots((10, 13))) == 0.0  # distance 3
    # two predicted edges, one near the goal's single edge: P = 1/2, R = 1, F1 = 2/3
    assert metrics.edge_f1_maps(dots((10, 10), (25, 25)), dots((11, 10))) == pytest.approx(2 / 3)


def test_edge_f1_empty_maps() -> None:
    empty = dots()
    assert metrics.edge_f1_maps(empty, empty) == 1.0
    assert metrics.edge_f1_maps(dots((5, 5)), empty) == 0.0
    assert metrics.edge_f1_maps(empty, dots((5, 5))) == 0.0


def square(offset: int) -> np.ndarray:
    img = flat(0.0, 64)
    img[16 + offset : 48 + offset, 16:48, :] = 1.0
    return img


def test_edge_f1_on_images_uses_canny() -> None:
    assert metrics.edge_map(square(0)).sum() > 0
    assert metrics.edge_f1(square(0), square(0)) == 1.0
    assert metrics.edge_f1(square(0), flat(0.0, 64)) == 0.0  # goal has no edges
    assert metrics.edge_f1(flat(0.0, 64), flat(0.0, 64)) == 1.0
    # a shift of 2 rows keeps every edge matched; 10 rows leaves only the vertical sides
    assert metrics.edge_f1(square(2), square(0)) == 1.0
    assert 0.0 < metrics.edge_f1(square(10), square(0)) < 1.0


def test_score_files_resizes_to_the_goal_and_reports_unavailable(tmp_path) -> None:
    import cv2

    goal = tmp_path / "goal.png"
    img = tmp_path / "img.png"
    cv2.imwrite(str(goal), np.full((8, 8, 3), 0, np.uint8))
    cv2.imwrite(str(img), np.full((16, 16, 3), 51, np.uint8))  # 51/255 = 0.2
    scores = metrics.score(img, goal)
    assert scores.resized and scores.size == (8, 8)
    assert scores.pl == pytest.approx(0.04)
    assert scores.psnr == pytest.approx(-10 * math.log10(0.04))
    assert scores.n_clip == scores.lpips == "unavailable"
    same = metrics.score(goal, goal)
    assert (same.pl, same.psnr, same.ssim, same.edge_f1, same.resized) == (0, 100, 1, 1, False)


def test_bad_inputs_are_config_errors(tmp_path) -> None:
    with pytest.raises(ConfigError):
        metrics.score(tmp_path / "missing.png", tmp_path / "missing.png")
    (tmp_path / "junk.png").write_text("not an image")
    with pytest.raises(ConfigError):
        metrics.load_rgb(tmp_path / "junk.png")
    with pytest.raises(ConfigError):
        metrics.load_rgb(np.full((4, 4, 3), 2.0))
