"""`tether.measure(page)`: the geometry instrument on one page, from Python.

What `tether measure FILE` does for one file, returning the observation instead of
printing it: `score`, `passed` (no defect), `defects` (kind, message, location, evidence)
and `raw` (`n_defects`, `counts` by kind, per viewport and frame). A page that could not
be rendered is an observation with `error` set, never a clean page (`passed` is None).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tether.errors import ConfigError
from tether.params import check_params

if TYPE_CHECKING:
    from tether.core import Observation

__all__ = ["measure"]


def measure(page: str | Path, *, modality: str | None = None, profile: str = "default",
            frames: Sequence[int] | str | None = None) -> Observation:
    """Measure the rendered layout of `page`: a `Path`, or a string that is either HTML
    (it contains "<") or a file's path. A file is measured with its folder served (its
    stylesheets, images and fonts); HTML text alone. `modality` is figure, slide, web or
    animation (default: animation when `frames` are given, else figure); `frames` are an
    animation's frame times in ms; `profile` is default or reference."""
    from tether.systems.pages.geometry.instrument import GeometryInstrument
    from tether.systems.pages.geometry.profiles import normalize_modality, parse_frames

    text, base_dir = _read(page)
    frame_times = parse_frames(frames if isinstance(frames, str) or frames is None
                               else list(frames))
    chosen = normalize_modality(modality) if modality else (
        "animation" if frame_times else "figure")
    if frame_times and chosen != "animation":
        raise ConfigError("frames apply to animations only",
                          hint="pass modality='animation' or drop frames")
    # the profile checked against the instrument's declaration: one line when unknown
    options = check_params("tether.measure", GeometryInstrument, {"profile": profile})
    assert isinstance(options, GeometryInstrument.Params)
    return GeometryInstrument(options).measure(text, chosen, frame_times, base_dir)


def _read(page: str | Path) -> tuple[str, Path | None]:
    if isinstance(page, str) and "<" in page:
        return page, None
    path = Path(page)
    if not path.is_file():
        raise ConfigError(f"no such page: {path}",
                          hint="pass an HTML file's path, or the HTML text itself")
    return path.read_text(encoding="utf-8", errors="replace"), path.parent
