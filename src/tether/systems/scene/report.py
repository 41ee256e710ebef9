"""The report's scene section and the demo's scene example.

The numbers are computed in `tether.systems.scene.results` (per arm, family and level:
means of PL, N-CLIP, PSNR, SSIM, edge F1, LPIPS and CLIP where trials have them, with
invalid trials counted by reason; the paper's Eq. 9 / Eq. 5 improvement columns; paired
comparisons with the run's resampling setting; cost; refiner statistics); this module
registers the section, reads the run's `[stats]` setting and embeds the kept renders
(`png_b64` artifacts) as data URLs.
"""

from __future__ import annotations

import base64
from typing import Any

from pydantic import BaseModel, ConfigDict

from tether.models import png_data_url
from tether.report import Section, SectionInput, register_section, validated
from tether.runs import RunStore
from tether.stats import resampling_of
from tether.systems.scene.results.numbers import scene_numbers

__all__ = ["SceneDemoSection", "SceneSection", "embed_renders", "scene_demo_rows",
           "scene_numbers"]


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
    learned: bool
    primary: bool


class SceneNumbers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    metrics: list[SceneMetric]
    families: list[str]
    levels: list[str]  # the task data's difficulty levels (BlenderBench), often none
    summary: list[dict[str, Any]]  # per arm, family and level: counts and means
    improvement_baseline: str | None  # the arm the Eq. 9 / Eq. 5 columns are against
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
        found = scene_numbers(run.entries, resampling_of(run.store.config()), run.baseline)
        return validated(SceneNumbers, found)

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
