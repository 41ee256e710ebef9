"""Loader for the interaction-scaling study's visual task files.

Files are JSON lists of `{task_id, description, requirements, ...}` under
`tasks/diagrams`, `tasks/slides`, `tasks/webpages` and `tasks/animations`. The
modality decides how the geometry instrument renders an artifact:
- `figure` and `slide`: a fixed 1920x1080 canvas (overflow beyond it is a defect),
- `web`: 1920x1080 and 375x812 with vertical scrolling allowed,
- `animation`: a fixed canvas measured at the task's `frame_times_ms`.

The study's deep-research files (`tasks/research`, tasks with `trap_claims`) have the
same shape but are refused: their score is factual accuracy and trap claims avoided,
which no grounded instrument of tether observes, and the geometry metric would score
only the report's layout.

The prompt follows the study's style: the task description as the user message,
and a design-principles system prompt. The binary `requirements` are kept in
`data` for the screenshot judge (the ungrounded comparator); they never reach the
proposer beyond what the description already says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tether.core import Task
from tether.errors import ConfigError
from tether.suites import is_json_task_list, load_json_task_list, register_format

FORMAT = "interaction-scaling/visual"
MODALITIES = ("figure", "slide", "web", "animation")

DESIGN_PRINCIPLES = (
    "You are an expert visual designer who writes self-contained HTML (inline CSS and "
    "inline SVG; no external files, fonts, scripts from the network or images). Follow "
    "the design principles: proximity (group related items, separate unrelated ones), "
    "alignment (every element on a shared edge or centre line), repetition (consistent "
    "sizes, spacing and styles for items of the same kind), contrast (clear hierarchy; "
    "text readable against its background) and colour (a small, consistent palette). "
    "No text may overlap other text, nothing may overflow its container or the canvas, "
    "and boxes meant as a row or column must share sizes and gaps."
)
ANSWER_FORMAT = "Return the complete HTML document in a single ```html block."

#: folder name of the study's task files -> modality
_FOLDER_MODALITY = {"diagrams": "figure", "slides": "slide", "webpages": "web",
                    "animations": "animation"}


def sniff(path: Path) -> bool:
    """True for a JSON list of task objects with requirements and no test code."""
    return is_json_task_list(path, lambda t: "requirements" in t and "test_code" not in t
                             and "description" in t)


def modality_of(obj: dict[str, Any], path: Path) -> str:
    """The modality of a task: from its fields where they say, else from its folder."""
    if obj.get("modality") in MODALITIES:
        return obj["modality"]
    if "frame_times_ms" in obj:
        return "animation"
    if "viewport_sizes" in obj:
        return "web"
    folder = _FOLDER_MODALITY.get(path.parent.name)
    if folder:
        return folder
    name = path.stem.lower()
    for key, modality in (("slide", "slide"), ("web", "web"), ("anim", "animation")):
        if key in name:
            return modality
    return "figure"


@register_format(FORMAT, sniff=sniff)
def load_interaction_scaling_visual(path: Path) -> list[Task]:
    return load_json_task_list(path, "visual", to_visual_task)


def _listish(value: Any) -> Any:
    # Some files store lists as their Python repr in a string; JSON-parse those.
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def to_visual_task(obj: Any, index: int, path: Path, suite: str | None = None) -> Task:
    if not isinstance(obj, dict):
        raise ConfigError(f"{path}: task {index}: expected a JSON object, "
                          f"got {type(obj).__name__}")
    label = f"task {index}" + (f" (id {obj['task_id']!r})" if "task_id" in obj else "")
    if "trap_claims" in obj:
        raise ConfigError(
            f"{path}: {label} is a deep-research task (it has trap_claims): tether has no "
            "metric for it, and the geometry metric of visual tasks would score its "
            "report's layout, not whether its facts are right or its trap claims avoided",
            hint="research tasks are refused rather than scored meaninglessly; checking "
                 "factual claims needs a model judge (tether judge --rubrics with your own "
                 "rubric file on a run of other tasks)")
    for key in ("task_id", "description"):
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            raise ConfigError(f"{path}: {label}: key {key!r} must be a non-empty string",
                              hint=f"{FORMAT} tasks need task_id, description, requirements")
    requirements = _listish(obj.get("requirements", []))
    if not isinstance(requirements, list) or not all(isinstance(r, str) for r in requirements):
        raise ConfigError(f"{path}: {label}: key 'requirements' must be a list of strings")
    modality = modality_of(obj, path)
    data: dict[str, Any] = {"modality": modality, "requirements": requirements,
                            "difficulty": obj.get("difficulty")}
    if modality == "animation":
        frames = _listish(obj.get("frame_times_ms", [0, 1000, 2000, 3000, 4000]))
        if not isinstance(frames, list) or not all(isinstance(f, int | float) for f in frames):
            raise ConfigError(f"{path}: {label}: key 'frame_times_ms' must be a list of "
                              "numbers (milliseconds)")
        data["frame_times_ms"] = [int(f) for f in frames]
    if "expected_issues" in obj:
        data["expected_issues"] = _listish(obj["expected_issues"])
    return Task(id=obj["task_id"], suite=suite or path.stem,
                prompt=obj["description"].rstrip() + "\n\n" + ANSWER_FORMAT,
                system=DESIGN_PRINCIPLES, artifact_kind="html", metric="geometry",
                data=data)
