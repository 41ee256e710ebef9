"""matplotlib for the report's plots: the Agg backend (headless, never needs a display)
and `save`, which writes a figure as a reproducible PNG and closes it. Every plot module
of the report (plots.py and the sections') draws through this one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: never needs a display

import matplotlib.pyplot as plt  # noqa: E402

DPI = 100

__all__ = ["DPI", "plt", "save"]


def save(fig: Any, path: Path) -> None:
    # Fixed margins instead of tight_layout, which draws the figure a second time.
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, metadata={"Software": None})  # no version stamp: reproducible
    plt.close(fig)
