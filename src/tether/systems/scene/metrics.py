"""Image metrics for scene renders, exactly as the VETR paper's Appendix L defines them.

Images are RGB floats in [0, 1] at the goal's resolution (a render of another size is
resized to it). PL is the RGB mean squared error; PSNR is -10 log10 MSE in dB, 100 dB
when MSE <= 1e-10, computed per image; SSIM is scikit-image's structural_similarity on
the RGB channels with data_range=1 and its default 7x7 uniform window; edge F1 runs
OpenCV Canny (100, 200) on both 8-bit grayscale images, dilates each edge map by a 5x5
all-ones kernel (a match within two pixels, Chebyshev) and takes the harmonic mean of
precision (predicted edges matched to a dilated goal edge) and recall (the converse);
both maps empty gives 1, exactly one empty gives 0.

N-CLIP (1 - the cosine of CLIP ViT-B/32 image embeddings) and LPIPS (AlexNet) need learned
weights no package here ships: they are computed from ONNX files the user names
(learned.py), and reported as "unavailable", with the reason, when none are configured,
never replaced by another metric under their names.

A task with several camera views is scored per view and the values averaged (PSNR too is
computed per image before averaging): mean_scores().
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tether.errors import ConfigError
from tether.systems.scene.learned import LearnedMetrics, lpips, n_clip
from tether.systems.scene.opencv import opencv as _cv2

PSNR_CAP_DB = 100.0
PSNR_MSE_FLOOR = 1e-10
CANNY_THRESHOLDS = (100, 200)
EDGE_TOLERANCE_KERNEL = 5  # 5x5 ones: two pixels either way
UNAVAILABLE = "unavailable"

ImageLike = str | Path | np.ndarray


def load_rgb(image: ImageLike) -> np.ndarray:
    """An image as float64 RGB in [0, 1], shape (H, W, 3); arrays pass through checked.

    Files are read with alpha dropped (not composited), as an RGB reader does; uint8
    arrays are divided by 255, uint16 by 65535, float arrays must already be in [0, 1].
    """
    if isinstance(image, np.ndarray):
        arr = image
    else:
        path = Path(image)
        if not path.is_file():
            raise ConfigError(f"no image at {path}")
        cv2 = _cv2()
        raw = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if raw is None:
            raise ConfigError(f"{path} is not an image OpenCV can read")
        if raw.ndim == 2:
            raw = np.repeat(raw[:, :, None], 3, axis=2)
        arr = cv2.cvtColor(np.ascontiguousarray(raw[:, :, :3]), cv2.COLOR_BGR2RGB)
    if arr.ndim == 2:
        arr = np.repeat(arr[:, :, None], 3, axis=2)
    if arr.ndim != 3 or arr.shape[2] not in (3, 4):
        raise ConfigError(f"an image must be HxWx3 (or 4), not shape {arr.shape}")
    arr = arr[:, :, :3]
    if arr.dtype == np.uint8:
        return arr.astype(np.float64) / 255.0
    if arr.dtype == np.uint16:
        return arr.astype(np.float64) / 65535.0
    out = arr.astype(np.float64)
    if out.size and (out.min() < 0.0 or out.max() > 1.0):
        raise ConfigError("float images must lie in [0, 1]")
    return out


def match_size(image: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """image resized to goal's height and width (area filter down, linear up)."""
    if image.shape[:2] == goal.shape[:2]:
        return image
    cv2 = _cv2()
    h, w = goal.shape[:2]
    shrink = image.shape[0] > h or image.shape[1] > w
    method = cv2.INTER_AREA if shrink else cv2.INTER_LINEAR
    resized = cv2.resize(image.astype(np.float32), (w, h), interpolation=method)
    return np.clip(resized.astype(np.float64), 0.0, 1.0)


def pl(image: np.ndarray, goal: np.ndarray) -> float:
    """Pixel loss: the mean squared error over all pixels and RGB channels."""
    return float(np.mean((image - goal) ** 2))


def psnr(image: np.ndarray, goal: np.ndarray) -> float:
    mse = pl(image, goal)
    return PSNR_CAP_DB if mse <= PSNR_MSE_FLOOR else -10.0 * math.log10(mse)


def ssim(image: np.ndarray, goal: np.ndarray) -> float:
    from skimage.metrics import structural_similarity  # deferred: an optional extra, slow to import

    return float(structural_similarity(image, goal, channel_axis=2, data_range=1.0))


def to_gray8(image: np.ndarray) -> np.ndarray:
    """8-bit grayscale as OpenCV makes it from the 8-bit RGB image."""
    cv2 = _cv2()
    rgb8 = np.clip(np.rint(image * 255.0), 0, 255).astype(np.uint8)
    return cv2.cvtColor(rgb8, cv2.COLOR_RGB2GRAY)


def edge_map(image: np.ndarray) -> np.ndarray:
    """Canny (100, 200) edges of the 8-bit grayscale image, as a bool map."""
    return _cv2().Canny(to_gray8(image), *CANNY_THRESHOLDS) > 0


def edge_f1_maps(pred: np.ndarray, goal: np.ndarray) -> float:
    """Edge F1 of two bool edge maps with the 5x5 dilation tolerance."""
    n_pred, n_goal = int(pred.sum()), int(goal.sum())
    if n_pred == 0 and n_goal == 0:
        return 1.0
    if n_pred == 0 or n_goal == 0:
        return 0.0
    cv2 = _cv2()
    kernel = np.ones((EDGE_TOLERANCE_KERNEL, EDGE_TOLERANCE_KERNEL), np.uint8)
    goal_near = cv2.dilate(goal.astype(np.uint8), kernel) > 0
    pred_near = cv2.dilate(pred.astype(np.uint8), kernel) > 0
    precision = float((pred & goal_near).sum()) / n_pred
    recall = float((goal & pred_near).sum()) / n_goal
    if precision + recall == 0.0:
        return 0.0
    return 2.0 * precision * recall / (precision + recall)


def edge_f1(image: np.ndarray, goal: np.ndarray) -> float:
    return edge_f1_maps(edge_map(image), edge_map(goal))




@dataclass(frozen=True)
class SceneScores:
    """All Appendix L metrics of one render against its goal (or their means over views)."""

    pl: float
    psnr: float
    ssim: float
    edge_f1: float
    n_clip: float | str = UNAVAILABLE  # from a CLIP ViT-B/32 image encoder the user names
    lpips: float | str = UNAVAILABLE  # from an AlexNet LPIPS network the user names
    resized: bool = False  # the render was resized to the goal's resolution
    size: tuple[int, int] = (0, 0)  # (width, height) the metrics were computed at
    #: metric -> why it is "unavailable" (no network configured)
    unavailable: dict[str, str] = field(default_factory=dict)
    views: int = 1  # camera views averaged

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["size"] = list(self.size)
        return out


def score(image: ImageLike, goal: ImageLike,
          learned: LearnedMetrics | None = None) -> SceneScores:
    """Every metric of `image` against `goal`, at the goal's resolution; N-CLIP and LPIPS
    when `learned` names their networks, else "unavailable" with the reason."""
    learned = learned or LearnedMetrics()
    goal_rgb = load_rgb(goal)
    raw = load_rgb(image)
    img = match_size(raw, goal_rgb)
    h, w = goal_rgb.shape[:2]
    if min(h, w) < 7:
        raise ConfigError(f"images must be at least 7x7 for SSIM's window, not {w}x{h}")
    values: dict[str, float | str] = {}
    reasons: dict[str, str] = {}
    for key, network, fn in (("n_clip", learned.clip, n_clip), ("lpips", learned.lpips, lpips)):
        why = learned.why_not(key)
        if why is not None or network is None:
            values[key], reasons[key] = UNAVAILABLE, why or "not configured"
        else:
            values[key] = fn(network, img, goal_rgb)
    return SceneScores(
        pl=pl(img, goal_rgb),
        psnr=psnr(img, goal_rgb),
        ssim=ssim(img, goal_rgb),
        edge_f1=edge_f1(img, goal_rgb),
        resized=raw.shape[:2] != goal_rgb.shape[:2],
        size=(w, h),
        unavailable=reasons,
        # values holds SceneScores' metric fields (each a score or the reason it is absent)
        **values,  # type: ignore[arg-type]
    )


def mean_scores(per_view: list[SceneScores]) -> SceneScores:
    """The per-view scores averaged (BlenderGym's convention for Camera1 / Camera2)."""
    if not per_view:
        raise ValueError("no views to average")
    if len(per_view) == 1:
        return per_view[0]

    def avg(key: str) -> float | str:
        vals = [getattr(s, key) for s in per_view]
        if any(isinstance(v, str) for v in vals):
            return UNAVAILABLE
        return float(np.mean(vals))

    first = per_view[0]
    return SceneScores(
        pl=float(avg("pl")), psnr=float(avg("psnr")), ssim=float(avg("ssim")),
        edge_f1=float(avg("edge_f1")), n_clip=avg("n_clip"), lpips=avg("lpips"),
        resized=any(s.resized for s in per_view), size=first.size,
        unavailable={k: v for s in per_view for k, v in s.unavailable.items()},
        views=len(per_view),
    )
