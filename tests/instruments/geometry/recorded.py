"""Reading the study's recorded visual artifacts (run-1 HTML and run-1 counts)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

#: recorded folder -> tether modality
MODALITY_DIRS = {"figures": "figure", "slides": "slide", "web": "web",
                 "animations": "animation"}


@dataclass(frozen=True)
class RecordedArtifact:
    task_id: str
    side: str  # "ss" (single-shot) or "rv" (reviewed)
    modality: str
    html: str
    run1_n_defects: int
    frames: tuple[int, ...] | None


def load_recorded(root: Path, folder: str) -> list[RecordedArtifact]:
    """Both run-1 artifacts of every task in recorded/visual/<folder>, sorted by task."""
    frames: dict[str, tuple[int, ...]] = {}
    if folder == "animations":
        tasks = json.loads((root / "tasks/animations/animation_tasks_clean.json").read_text())
        frames = {t["task_id"]: tuple(t["frame_times_ms"]) for t in tasks}
    out = []
    for path in sorted((root / "recorded/visual" / folder).glob("*.json")):
        rec = json.loads(path.read_text())
        run1 = next(r for r in rec["runs"] if r["run"] == 1)
        for side in ("ss", "rv"):
            out.append(RecordedArtifact(rec["id"], side, MODALITY_DIRS[folder],
                                        rec[f"{side}_html"], int(run1[f"{side}_n_defects"]),
                                        frames.get(rec["id"])))
    return out
