"""N-CLIP and LPIPS from networks the user supplies as ONNX files (no weights ship here).

The paper's definitions (its Section 3 and Appendix L):
- N-CLIP = 1 - <f(r), f(y*)>, f the CLIP ViT-B/32 *image* embedding, unit-normalised: both
  the render r and the goal y* are images, so only CLIP's image encoder is needed. The
  encoder file takes a float32 batch (N, 3, S, S) (S = its input size, 224 for ViT-B/32)
  and returns (N, D) embeddings; tether does CLIP's preprocessing (shorter side resized to
  S bicubic, centre crop, RGB normalised by CLIP's mean and std).
- LPIPS with the AlexNet backbone and its learned calibration, inputs scaled to [-1, 1].
  The network file takes two float32 batches (N, 3, H, W) in [-1, 1], named in that order,
  and returns the distance, any shape holding one value per image. Images go in at the
  goal's resolution, or at the input size the file fixes.

A file whose inputs are not image batches of that shape (another rank, a CLIP input that
is not square, a wrong number of inputs), one onnxruntime cannot run (it refuses the
shape, it cannot allocate the memory), and a value outside the metric's range (LPIPS
below 0) are one-line errors naming the file, never a number in the table.

Configuration: `TETHER_CLIP_ONNX` and `TETHER_LPIPS_ONNX` name the files (or the
`clip=` / `lpips=` options of the `scene_render` instrument, `--clip-onnx` /
`--lpips-onnx` of `tether scene score`). Unconfigured, each metric is reported as
`unavailable` with the reason, never replaced by another metric under its name.
Sessions are built once per file and process.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tether.errors import ConfigError
from tether.systems.scene.opencv import opencv

CLIP_ENV, LPIPS_ENV = "TETHER_CLIP_ONNX", "TETHER_LPIPS_ONNX"
CLIP_SIZE = 224
CLIP_MEAN = np.array([0.48145466, 0.4578275, 0.40821073])
CLIP_STD = np.array([0.26862954, 0.26130258, 0.27577711])
_SESSIONS: dict[tuple[str, int], Any] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class LearnedMetrics:
    """Which ONNX files compute N-CLIP and LPIPS (None: that metric is unavailable)."""

    clip: Path | None = None
    lpips: Path | None = None

    @classmethod
    def configured(cls, clip: str | Path | None = None,
                   lpips: str | Path | None = None) -> LearnedMetrics:
        """The files given, else those the environment names; each must exist."""
        out = []
        for given, env, what in ((clip, CLIP_ENV, "CLIP image encoder"),
                                 (lpips, LPIPS_ENV, "LPIPS network")):
            value = given if given not in (None, "") else os.environ.get(env) or None
            path = Path(value).expanduser() if value else None
            if path is not None and not path.is_file():
                raise ConfigError(f"no {what} ONNX file at {path}",
                                  hint=f"point {env} (or the option) at an existing .onnx file")
            out.append(path)
        return cls(*out)

    def why_not(self, metric: str) -> str | None:
        """The reason a metric is unavailable, or None when it is configured."""
        if metric == "n_clip" and self.clip is None:
            return (f"no CLIP ViT-B/32 image encoder configured (set {CLIP_ENV} to an ONNX "
                    "file, see docs/scenes/metrics.md)")
        if metric == "lpips" and self.lpips is None:
            return (f"no LPIPS (AlexNet) network configured (set {LPIPS_ENV} to an ONNX "
                    "file, see docs/scenes/metrics.md)")
        return None


def _session(path: Path) -> Any:
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise ConfigError("N-CLIP and LPIPS need onnxruntime",
                          hint="pip install 'tether[harness]'") from exc
    key = (str(path.resolve()), path.stat().st_mtime_ns)
    with _LOCK:
        if key not in _SESSIONS:
            options = ort.SessionOptions()
            options.intra_op_num_threads = 1  # one render pair at a time, beside Cycles
            try:
                _SESSIONS[key] = ort.InferenceSession(str(path), options,
                                                      providers=["CPUExecutionProvider"])
            except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own types
                raise ConfigError(f"{path}: not an ONNX model onnxruntime can load: "
                                  f"{str(exc).splitlines()[0][:200]}") from None
        return _SESSIONS[key]


def _image_inputs(session: Any, path: Path, what: str, count: int) -> list[Any]:
    """The session's inputs, checked to be `count` image batches (N, 3, H, W); a file
    of another shape is a one-line ConfigError naming it, never onnxruntime's traceback."""
    inputs = list(session.get_inputs())
    if len(inputs) != count:
        raise ConfigError(f"{path}: {what} takes {count} image input(s), this one takes "
                          f"{len(inputs)}")
    for inp in inputs:
        shape = list(inp.shape or [])
        channels = shape[1] if len(shape) == 4 else None
        if len(shape) != 4 or (isinstance(channels, int) and channels != 3):
            raise ConfigError(f"{path}: {what} takes images of shape (N, 3, H, W); its "
                              f"input {inp.name!r} has shape {shape}")
    return inputs


def _run(session: Any, path: Path, feeds: dict[str, np.ndarray]) -> np.ndarray:
    """The first output of one run; what onnxruntime raises (a shape it refuses, memory it
    cannot allocate) is a one-line ConfigError naming the file."""
    try:
        return np.asarray(session.run(None, feeds)[0], dtype=np.float64)
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own types
        text = str(exc).strip().splitlines()
        raise ConfigError(f"{path}: onnxruntime could not run it: "
                          f"{(text[0] if text else type(exc).__name__)[:200]}") from None


def _fixed_hw(shape: list[Any]) -> tuple[int, int] | None:
    """(H, W) an input fixes, or None when they are dynamic."""
    h, w = shape[-2:] if len(shape) >= 2 else (None, None)
    return (h, w) if isinstance(h, int) and isinstance(w, int) and h > 0 and w > 0 else None


def _resize(rgb: np.ndarray, h: int, w: int, method: str) -> np.ndarray:
    cv2 = opencv()
    flag = {"cubic": cv2.INTER_CUBIC, "area": cv2.INTER_AREA, "linear": cv2.INTER_LINEAR}[method]
    out = cv2.resize(rgb.astype(np.float32), (w, h), interpolation=flag)
    return np.clip(out.astype(np.float64), 0.0, 1.0)


def clip_input(rgb: np.ndarray, size: int = CLIP_SIZE) -> np.ndarray:
    """CLIP's preprocessing of an RGB [0, 1] image: (1, 3, size, size) float32."""
    h, w = rgb.shape[:2]
    scale = size / min(h, w)
    nh, nw = max(size, round(h * scale)), max(size, round(w * scale))
    resized = _resize(rgb, nh, nw, "cubic")
    top, left = (nh - size) // 2, (nw - size) // 2
    crop = resized[top:top + size, left:left + size]
    normed = (crop - CLIP_MEAN) / CLIP_STD
    return normed.transpose(2, 0, 1)[None].astype(np.float32)


def clip_embedding(path: Path, rgb: np.ndarray) -> np.ndarray:
    """The unit-normalised image embedding (D,) of an RGB [0, 1] image."""
    session = _session(path)
    (inp,) = _image_inputs(session, path, "a CLIP image encoder", 1)
    fixed = _fixed_hw(list(inp.shape))
    if fixed and fixed[0] != fixed[1]:
        raise ConfigError(f"{path}: a CLIP image encoder takes square images; its input "
                          f"fixes {fixed[0]}x{fixed[1]}")
    size = fixed[0] if fixed else CLIP_SIZE
    vec = _run(session, path, {inp.name: clip_input(rgb, size)}).reshape(-1)
    norm = float(np.linalg.norm(vec))
    if not np.isfinite(norm) or norm == 0.0:
        raise ConfigError(f"{path}: the CLIP encoder returned a zero or non-finite embedding")
    return vec / norm


def n_clip(path: Path, image: np.ndarray, goal: np.ndarray) -> float:
    """1 - cosine similarity of the two images' CLIP embeddings, in [0, 2]."""
    value = float(1.0 - np.dot(clip_embedding(path, image), clip_embedding(path, goal)))
    return min(max(value, 0.0), 2.0)  # unit vectors: only rounding can step outside


def lpips(path: Path, image: np.ndarray, goal: np.ndarray) -> float:
    """The LPIPS distance of two RGB [0, 1] images of one size (the goal's)."""
    session = _session(path)
    inputs = _image_inputs(session, path, "an LPIPS network", 2)
    fixed = _fixed_hw(list(inputs[0].shape))

    def prepare(rgb: np.ndarray) -> np.ndarray:
        if fixed and rgb.shape[:2] != fixed:
            rgb = _resize(rgb, fixed[0], fixed[1], "area")
        return (rgb * 2.0 - 1.0).transpose(2, 0, 1)[None].astype(np.float32)

    values = _run(session, path, {inputs[0].name: prepare(image),
                                  inputs[1].name: prepare(goal)}).reshape(-1)
    if values.size != 1 or not np.isfinite(values[0]):
        raise ConfigError(f"{path}: the LPIPS network must return one finite value per image "
                          f"pair, not {values.size}")
    if values[0] < 0:  # a distance: a network that says otherwise is not LPIPS
        raise ConfigError(f"{path}: the LPIPS network returned {values[0]:g}, outside a "
                          "distance's range (>= 0)")
    return float(values[0])
