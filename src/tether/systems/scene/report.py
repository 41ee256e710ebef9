"""The report's scene section: trials of scene strategies (vetr, viga, blender_alchemy,
scene_one_shot), read from their SceneFacts and their scene_render metric.

- means per arm, per family and overall, of PL / PSNR / SSIM / edge F1 over valid trials
  (a trial with no successful generated render or a timeout is invalid: counted, never
  averaged as 0), with the invalid counts by reason;
- cost per task: calls per role, executions, renders, wall time;
- paired comparisons as the paper reports them (its Appendix J): for each pair of arms,
  on the (task, seed) pairs valid for both, the relative reduction of the first arm's
  mean error (PL; for PSNR the difference in dB, for SSIM and edge F1 the relative
  improvement), a 95% task bootstrap (`tether.stats`' resampling setup: 10,000
  resamples, seed 0), wins / losses / ties
  and the exact two-sided sign test without ties; significant = the interval excludes
  0 and p < .05;
- refiner statistics per arm: the accepted alternative per submission, raw fallbacks,
  previous-record reuse, executions per submission;
- start / goal / delivered renders per task side by side (the PNGs the strategies kept
  as `png_b64` artifacts, embedded as data URLs).
"""

from __future__ import annotations

import base64
import math
from collections import Counter, defaultdict
from itertools import combinations
from statistics import mean
from typing import TYPE_CHECKING, Any

from tether.models import png_data_url
from tether.stats import CI, N_RESAMPLES, SEED, PairedObservation, paired_bootstrap, sign_test
from tether.systems.scene import SceneFacts, scene_facts_of

if TYPE_CHECKING:
    from tether.report import TrialEntry
    from tether.runs import RunStore
from pydantic import BaseModel, ConfigDict

from tether.report import Section, SectionInput, register_section, validated
from tether.runs import RunStore

METRICS = (("pl", "PL", False), ("psnr", "PSNR", True), ("ssim", "SSIM", True),
           ("edge_f1", "edge F1", True))
ALPHA = 0.05


def _scores(entry: TrialEntry, facts: SceneFacts) -> dict[str, float] | None:
    """The metric values of a valid trial, else None."""
    metric = entry.record.metric
    if not facts.valid or metric is None or entry.record.status == "error":
        return None
    raw = metric.raw or {}
    if not all(isinstance(raw.get(k), int | float) for k, _, _ in METRICS):
        return None
    return {k: float(raw[k]) for k, _, _ in METRICS}


def _means(rows: list[dict[str, float]]) -> dict[str, float | None]:
    return {k: (mean(r[k] for r in rows) if rows else None) for k, _, _ in METRICS}


def _paired(first: dict, second: dict, key: str, higher: bool) -> dict[str, Any] | None:
    keys = sorted(set(first) & set(second))
    if not keys:
        return None
    a = [second[k][key] for k in keys]  # the comparison's reference
    b = [first[k][key] for k in keys]
    records = [PairedObservation(task=k[0], seed=k[1], a=x, b=y)
               for k, x, y in zip(keys, a, b, strict=True)]
    if key == "psnr":
        boot = paired_bootstrap(records, "mean_diff")
        est, low, high, unit = boot.estimate, boot.low, boot.high, "dB"
    else:
        boot = paired_bootstrap(records, "relative_reduction")
        est, low, high, unit = boot.estimate, boot.low, boot.high, "%"
        if higher:  # relative improvement of a similarity: the reduction's negative
            est, low, high = -est, -high, -low
    wins = sum((y > x) if higher else (y < x) for x, y in zip(a, b, strict=True))
    losses = sum((y < x) if higher else (y > x) for x, y in zip(a, b, strict=True))
    ties = len(keys) - wins - losses
    p = sign_test(wins, losses, ties).p_value
    defined = not any(math.isnan(v) for v in (est, low, high))
    return {"n": len(keys), "estimate": est if defined else None, "low": low, "high": high,
            "unit": unit, "wins": wins, "losses": losses, "ties": ties, "p": p,
            "significant": bool(defined and (low > 0 or high < 0) and p < ALPHA)}


def _refiner(facts: list[SceneFacts]) -> dict[str, Any]:
    subs = [s for f in facts for s in f.submissions]
    accepted = Counter(str(s.get("accepted")) for s in subs)
    execs = [int(s.get("executions", 0)) for s in subs]
    return {"submissions": len(subs), "accepted": dict(sorted(accepted.items())),
            "raw": accepted.get("raw", 0), "previous": accepted.get("previous", 0),
            "none": accepted.get("none", 0),
            "alternatives": sum(v for k, v in accepted.items()
                                if k not in ("raw", "previous", "none")),
            "executions_per_submission": mean(execs) if execs else None,
            "max_executions": max(execs) if execs else None}


def scene_numbers(entries: list[TrialEntry]) -> dict[str, Any] | None:
    """The scene section's numbers, or None when the run has no scene strategy trials."""
    rows = [(e, f) for e in entries if (f := scene_facts_of(e.record.extra)) is not None]
    if not rows:
        return None
    arms = list(dict.fromkeys(e.arm for e, _ in rows))
    by_arm: dict[str, list[tuple[TrialEntry, SceneFacts]]] = defaultdict(list)
    for e, f in rows:
        by_arm[e.arm].append((e, f))
    families = sorted({f.family or "?" for _, f in rows})
    valid: dict[str, dict[tuple[str, int], dict[str, float]]] = {}
    summary, cost, refiner = [], [], []
    for arm in arms:
        group = by_arm[arm]
        scored = {e.key: s for e, f in group if (s := _scores(e, f)) is not None}
        valid[arm] = scored
        fam = {fam: _means([scored[e.key] for e, f in group
                            if e.key in scored and (f.family or "?") == fam]) for fam in families}
        reasons = Counter(f.invalid_reason or "error" for e, f in group if e.key not in scored)
        summary.append({"arm": arm, "strategy": group[0][1].scene_strategy, "n": len(group),
                        "valid": len(scored), "invalid": dict(sorted(reasons.items())),
                        "overall": _means(list(scored.values())), "families": fam})
        facts = [f for _, f in group]
        roles = sorted({r for f in facts for r in f.calls})
        cost.append({"arm": arm, "calls": {r: mean(f.calls.get(r, 0) for f in facts)
                                           for r in roles},
                     "calls_total": mean(sum(f.calls.values()) for f in facts),
                     "executions": mean(f.executions for f in facts),
                     "renders": mean(f.renders for f in facts),
                     "interactions": mean(f.interactions for f in facts),
                     "invalid_replies": sum(f.invalid_replies for f in facts),
                     "wall_s": mean(f.wall_s or 0.0 for f in facts),
                     "modality": sorted({f"{r}: {m}" for f in facts
                                         for r, m in f.modality.items()})})
        refiner.append({"arm": arm, **_refiner(facts)})
    paired = []
    for first, second in combinations(arms, 2):
        cells = {k: _paired(valid[first], valid[second], k, hi) for k, _, hi in METRICS}
        if any(c is not None for c in cells.values()):
            paired.append({"first": first, "second": second, "cells": cells})
    tasks: dict[str, dict[str, Any]] = {}
    for e, f in rows:
        task = tasks.setdefault(e.record.spec.task_key, {"task": e.record.spec.task_key,
                                                         "family": f.family, "start": None,
                                                         "goal": None, "arms": []})
        task["start"] = task["start"] or f.renders_kept.get("start")
        task["goal"] = task["goal"] or f.renders_kept.get("goal")
        s = valid[e.arm].get(e.key)
        task["arms"].append({"arm": e.arm, "seed": e.record.spec.seed,
                             "delivered": f.renders_kept.get("delivered") if s else None,
                             "pl": s["pl"] if s else None,
                             "invalid": None if s else (f.invalid_reason or e.record.status),
                             "page": e.page})
    return {"metrics": [{"key": k, "label": label, "higher": hi} for k, label, hi in METRICS],
            "families": families, "summary": summary, "cost": cost, "refiner": refiner,
            "paired": paired, "tasks": sorted(tasks.values(), key=lambda t: t["task"]),
            "n_resamples": N_RESAMPLES, "seed": SEED, "ci": CI, "alpha": ALPHA}


def embed_renders(numbers: dict[str, Any], store: RunStore) -> None:
    """Replace the kept renders' digests by data URLs (the artifacts hold base64 PNGs)."""

    def uri(digest: str | None) -> str | None:
        text = store.artifact_text(digest) if digest else None
        return None if not text else png_data_url(base64.b64decode(text))

    for task in numbers["tasks"]:
        task["start_src"], task["goal_src"] = uri(task["start"]), uri(task["goal"])
        for arm in task["arms"]:
            arm["delivered_src"] = uri(arm["delivered"])


def scene_demo_rows(meta: dict[str, Any], store: RunStore) -> dict[str, Any] | None:
    """`tether demo`'s scene example (meta `scene_demo`) with its renders as data URLs."""
    row = meta.get("scene_demo")
    if not isinstance(row, dict):
        return None
    images = {}
    for name, digest in (row.get("renders") or {}).items():
        path = store.artifact_path(digest) if digest else None
        images[name] = (None if path is None or not path.is_file() else
                        png_data_url(path.read_bytes()))
    return {**row, "images": images}


Number = int | float


class SceneMetric(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str
    label: str
    higher: bool


class SceneNumbers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    metrics: list[SceneMetric]
    families: list[str]
    summary: list[dict[str, Any]]  # per arm (and family): means over valid trials
    cost: list[dict[str, Any]]  # per arm: calls, executions, renders, wall time
    refiner: list[dict[str, Any]]  # per arm: accepted alternatives, fallbacks
    paired: list[dict[str, Any]]  # per pair of arms: one cell per metric
    tasks: list[dict[str, Any]]  # per task: kept renders (digests; data URLs once finished)
    n_resamples: int
    seed: int
    ci: Number
    alpha: Number


class SceneDemoNumbers(BaseModel):
    """The demo's row as it recorded it (run meta `scene_demo`), with its renders."""

    model_config = ConfigDict(extra="allow")
    task: str
    images: dict[str, str | None]  # render name -> data URL (None: no render)


@register_section
class SceneSection(Section):
    name = "scene"
    numbers_model = SceneNumbers
    template = "scene.html.j2"
    templates = "tether.systems.scene"
    order = 30

    def compute(self, run: SectionInput) -> SceneNumbers | None:
        return validated(SceneNumbers, scene_numbers(run.entries))

    def finish(self, numbers: dict[str, Any], store: RunStore) -> None:
        embed_renders(numbers, store)


@register_section
class SceneDemoSection(Section):
    name = "scene_demo"
    numbers_model = SceneDemoNumbers
    template = "scene_demo.html.j2"
    templates = "tether.systems.scene"
    order = 40

    def compute(self, run: SectionInput) -> SceneDemoNumbers | None:
        return validated(SceneDemoNumbers, scene_demo_rows(run.meta, run.store))
