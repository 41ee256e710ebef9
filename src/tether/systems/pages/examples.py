"""Bundled example pages: small hand-written pages with planted layout defects.

They show what the geometry instrument sees (the demo measures them and puts their
overlays in the report) and are handy for trying `tether measure`. The modality is
the file name's first word: figure, slide, web or animation.
"""

from __future__ import annotations

import base64
from importlib import resources
from pathlib import Path
from typing import Any

from tether.core import Artifact, Task
from tether.instruments import InstrumentEnv

#: frames at which the example animation is measured (ms)
ANIMATION_FRAMES = [0, 400, 800, 1200, 1600]


def example_pages() -> list[tuple[Path, str]]:
    """(path, modality) of every bundled example page, in name order."""
    root = Path(str(resources.files("tether.systems.pages") / "data" / "examples"))
    return [(p, p.stem.split("_", 1)[0]) for p in sorted(root.glob("*.html"))]


def measure_example_pages(out_dir: Path | None = None) -> list[dict[str, Any]]:
    """Measure each example (default profile) with its overlay; PNGs go to `out_dir`.

    Each row: page, modality, n_defects, counts, error, overlay (path or None),
    overlay_error (why a page with defects has no overlay, else None) and
    overlay_png_b64 (for a store) when the page has defects.
    """
    from tether.systems.pages.geometry.instrument import GeometryInstrument

    instrument = GeometryInstrument(GeometryInstrument.Params(overlay=True))
    rows = []
    for path, modality in example_pages():
        task = Task(id=path.stem, suite="examples", prompt="", artifact_kind="html",
                    metric="geometry", data={"modality": modality,
                                             "frame_times_ms": ANIMATION_FRAMES})
        obs = instrument.observe(Artifact(kind="html", text=path.read_text()), task,
                                 InstrumentEnv())
        row: dict[str, Any] = {"page": path.name, "modality": modality,
                               "n_defects": obs.raw.get("n_defects"),
                               "counts": obs.raw.get("counts", {}), "error": obs.error,
                               "overlay": None,
                               "overlay_error": obs.raw.get("overlay_error")}
        png_b64 = obs.raw.get("overlay_png_b64")
        if png_b64 and out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            target = out_dir / f"{path.stem}.png"
            target.write_bytes(base64.b64decode(png_b64))
            row["overlay"] = str(target)
        row["overlay_png_b64"] = png_b64
        rows.append(row)
    return rows
