"""The interaction-scaling study's recorded visual artifacts, and its Table 6.

`recorded/visual/<folder>/<task>.json` holds the run-1 HTML (`ss_html`, `rv_html`) and
the per-run defect counts (`runs[]`) the study measured with its geometry rules. Read
at run time from the reference folder; nothing here is bundled.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tether.stats import N_RESAMPLES, SEED, PairedObservation, paired_bootstrap, paired_sign_test

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


@dataclass(frozen=True)
class DefectReduction:
    """One row of the study's Table 6: single-shot vs reviewed defects per (task, run).

    change_pct = 100 * (sum(reviewed) / sum(single_shot) - 1): -74 means 74% fewer
    defects; ci_low/ci_high its paired bootstrap interval over the (task, run) pairs,
    the paper's rule (tether's reports resample tasks instead: `unit` says which).
    improved counts pairs where the reviewed artifact had fewer defects.
    """

    folder: str
    n_pairs: int
    mean_single_shot: float
    mean_reviewed: float
    change_pct: float
    ci_low: float
    ci_high: float
    improved: int
    regressed: int
    ties: int
    p_value: float
    unit: str = "pair"


def defect_reduction(root: Path, folder: str, *, n_resamples: int = N_RESAMPLES,
                     seed: int = SEED, unit: Literal["pair", "task"] = "pair",
                     ) -> DefectReduction:
    """Table 6 for one modality from `runs[]`: every (task, run) pair, fewer is better."""
    pairs = []
    for path in sorted((root / "recorded/visual" / folder).glob("*.json")):
        rec = json.loads(path.read_text())
        for run in rec["runs"]:
            pairs.append(PairedObservation(task=rec["id"], seed=run["run"],
                                           a=float(run["ss_n_defects"]),
                                           b=float(run["rv_n_defects"])))
    a = [p.a for p in pairs]
    b = [p.b for p in pairs]
    sign = paired_sign_test(a, b, higher_is_better=False)
    boot = paired_bootstrap(pairs, statistic="relative_reduction", n_resamples=n_resamples,
                            seed=seed, unit=unit)
    return DefectReduction(folder=folder, n_pairs=len(pairs), mean_single_shot=sum(a) / len(a),
                           mean_reviewed=sum(b) / len(b), change_pct=-boot.estimate,
                           ci_low=-boot.high, ci_high=-boot.low, improved=sign.improved,
                           regressed=sign.regressed, ties=sign.ties, p_value=sign.p_value,
                           unit=unit)
