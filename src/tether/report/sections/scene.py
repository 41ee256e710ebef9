"""The scene sections: trials of the scene strategies (numbers: report/scene.py; template
scene.html.j2) and `tether demo`'s scene example (template scene_demo.html.j2)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from tether.report.scene import embed_renders, scene_demo_rows, scene_numbers
from tether.report.section import Section, SectionInput, register_section, validated
from tether.runs.store import RunStore

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
    order = 40

    def compute(self, run: SectionInput) -> SceneDemoNumbers | None:
        return validated(SceneDemoNumbers, scene_demo_rows(run.meta, run.store))
