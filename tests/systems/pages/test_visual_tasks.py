"""The interaction-scaling visual loader: every study file loads with its modality."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.errors import ConfigError
from tether.suites import load_suite
from tether.systems.pages.visual_tasks import DESIGN_PRINCIPLES

EXPECTED = {
    "animations/animation_tasks_clean.json": (20, "animation"),
    "animations/animation_tasks.json": (15, "animation"),
    "diagrams/paper_figure_tasks.json": (20, "figure"),
    "diagrams/diagram_tasks_hard.json": (15, "figure"),
    "slides/slide_tasks_hard2.json": (12, "slide"),
    "slides/slide_tasks.json": (20, "slide"),
    "webpages/webpage_tasks_hard.json": (20, "web"),
    "webpages/webpage_tasks.json": (15, "web"),
}


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_study_files_load_with_their_modality(interaction_scaling_dir: Path, rel: str) -> None:
    count, modality = EXPECTED[rel]
    tasks = load_suite(f"interaction-scaling:{interaction_scaling_dir / 'tasks' / rel}")
    assert len(tasks) == count
    for t in tasks:
        assert t.data["modality"] == modality
        assert t.artifact_kind == "html" and t.metric == "geometry"
        assert t.system == DESIGN_PRINCIPLES
        assert t.data["requirements"] and all(isinstance(r, str) for r in t.data["requirements"])
        assert "```html" in t.prompt
        if modality == "animation":
            assert t.data["frame_times_ms"] and all(
                isinstance(f, int) for f in t.data["frame_times_ms"])


def test_clean_animation_frames_are_the_studys(interaction_scaling_dir: Path) -> None:
    path = interaction_scaling_dir / "tasks/animations/animation_tasks_clean.json"
    raw = {t["task_id"]: t["frame_times_ms"] for t in json.loads(path.read_text())}
    for t in load_suite(f"interaction-scaling:{path}"):
        assert t.data["frame_times_ms"] == raw[t.id]


def test_bad_task_names_file_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "slides" / "x.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps([{"task_id": "a", "description": "d", "requirements": 3}]))
    with pytest.raises(ConfigError, match="requirements"):
        load_suite(f"interaction-scaling/visual:{bad}")
    bad.write_text(json.dumps([{"task_id": "a", "description": "d", "requirements": ["r"],
                                "frame_times_ms": ["soon"]}]))
    with pytest.raises(ConfigError, match=r"x\.json.*frame_times_ms"):
        load_suite(f"interaction-scaling/visual:{bad}")


def test_bundled_visual_suite_covers_the_four_modalities() -> None:
    tasks = load_suite("visual")
    assert len(tasks) >= 12
    by_modality: dict[str, int] = {}
    for t in tasks:
        by_modality[t.data["modality"]] = by_modality.get(t.data["modality"], 0) + 1
        assert t.suite == "visual" and len(t.data["requirements"]) >= 3
    assert by_modality == {"figure": 3, "slide": 3, "web": 3, "animation": 3}
    assert all(t.data["frame_times_ms"] for t in tasks if t.data["modality"] == "animation")


def _research_file(tmp_path: Path) -> Path:
    path = tmp_path / "research_tasks_hard.json"
    path.write_text(json.dumps([{
        "task_id": "research_001", "description": "Report on the five tallest buildings.",
        "requirements": ["Burj Khalifa at 828 m"], "trap_claims": ["Jeddah Tower completed"],
        "verification_queries": ["tallest buildings 2025"], "difficulty": "hard"}]))
    return path


def test_research_tasks_with_trap_claims_are_refused_not_scored_by_geometry(tmp_path: Path):
    with pytest.raises(ConfigError, match="deep-research task .*trap_claims.*no metric"):
        load_suite(f"interaction-scaling:{_research_file(tmp_path)}")


@pytest.mark.parametrize("name", ["research_tasks.json", "research_tasks_hard.json"])
def test_the_studys_research_files_are_refused(interaction_scaling_dir: Path, name: str):
    with pytest.raises(ConfigError, match="deep-research task"):
        load_suite(f"interaction-scaling:{interaction_scaling_dir / 'tasks/research' / name}")
