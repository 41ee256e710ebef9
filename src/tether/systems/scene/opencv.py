"""OpenCV, imported on first use: it comes with the optional `blender` extra, and a
missing install is a ConfigError that says how to get it (the metrics, the learned
networks' preprocessing and PNG decoding all need it)."""

from __future__ import annotations

from typing import Any

from tether.errors import ConfigError


def opencv() -> Any:
    """The `cv2` module; ConfigError with the install hint when it is missing."""
    try:
        import cv2  # deferred: an optional extra, loaded only when images are measured
    except ImportError as exc:  # the optional `blender` extra
        raise ConfigError(
            "scene metrics need opencv-python-headless",
            hint="pip install 'tether[blender]' (or run scripts/setup.sh)",
        ) from exc
    return cv2
