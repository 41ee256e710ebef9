"""Scene task layout, render digests, the BlenderGym adapter and the suite (no Blender)."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tether.errors import ConfigError  # noqa: E402
from tether.systems.scene.blendergym import load_blendergym_task, socket_renames  # noqa: E402
from tether.systems.scene.tasks import (  # noqa: E402
    FAMILIES,
    bundled_task_dirs,
    digest,
    load_task,
    render_matches,
)


def _png(rgb: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", (rgb[..., ::-1] * 255).round().astype(np.uint8))
    assert ok
    return buf.tobytes()


def test_bundled_suite_has_twenty_tasks_over_five_families_with_shared_data() -> None:
    tasks = [load_task(d) for d in bundled_task_dirs()]
    assert len(tasks) == 20
    assert Counter(t.family for t in tasks) == {f: 4 for f in FAMILIES}
    shared = [t for t in tasks if t.spec.get("shared")]
    assert {t.family for t in shared} == {"lighting", "material", "blendshape", "geometry"}
    for t in tasks:
        assert t.render.size == 64 and t.render.samples == 8
        assert set(t.spec["digests"]) == {"start", "goal"} and t.description


def test_a_directory_missing_files_or_with_an_unknown_family_is_refused(tmp_path) -> None:
    with pytest.raises(ConfigError, match="missing goal.py, description.md"):
        (tmp_path / "base.py").write_text("")
        (tmp_path / "start.py").write_text("")
        (tmp_path / "task.json").write_text("{}")
        load_task(tmp_path)
    src = bundled_task_dirs()[0]
    bad = tmp_path / "bad"
    shutil.copytree(src, bad)
    spec = json.loads((bad / "task.json").read_text())
    (bad / "task.json").write_text(json.dumps({**spec, "family": "sculpting"}))
    assert load_task(bad).family == "sculpting"  # a user's own family
    (bad / "task.json").write_text(json.dumps({**spec, "family": "no spaces here"}))
    with pytest.raises(ConfigError, match="family 'no spaces here' is not a short name"):
        load_task(bad)


def test_render_digest_matches_equal_bytes_and_noise_but_not_a_moved_region() -> None:
    rng = np.random.default_rng(0)
    img = np.full((64, 64, 3), 0.5)
    img[8:24, 8:24] = [0.9, 0.1, 0.1]
    stored = digest(_png(img))
    assert render_matches(_png(img), stored) == (True, 0.0)
    noisy = np.clip(img + rng.normal(0, 0.02, img.shape), 0, 1)  # per-pixel sampling noise
    ok, pl = render_matches(_png(noisy), stored)
    assert ok and 0 < pl <= 1e-4
    moved = np.full((64, 64, 3), 0.5)
    moved[40:56, 40:56] = [0.9, 0.1, 0.1]
    ok, pl = render_matches(_png(moved), stored)
    assert not ok and pl > 1e-4
    with pytest.raises(ConfigError, match="cannot be pooled to 8x8"):
        digest(_png(np.zeros((30, 30, 3))))


def test_socket_renames_are_reported_per_line_never_fixed() -> None:
    src = ('b = m.node_tree.nodes["Principled BSDF"]\n'
           'b.inputs["Specular"].default_value = 0.2\n'
           "b.inputs['Base Color'].default_value = (1, 0, 0, 1)\n"
           "b.inputs['Clearcoat Roughness'].default_value = 0.1\n")
    notes = socket_renames(src, "goal.py")
    assert [(n["line"], n["old"], n["new"]) for n in notes] == [
        (2, "Specular", "Specular IOR Level"), (4, "Clearcoat Roughness", "Coat Roughness")]


def test_blendergym_layout_and_format(tmp_path) -> None:
    from tether.suites.registry import load_suite

    task = tmp_path / "material7"
    (task / "renders" / "goal").mkdir(parents=True)
    (task / "renders" / "goal" / "render1.png").write_bytes(b"")
    (task / "blender_file.blend").write_bytes(b"BLENDER-not-parsed-here")
    (task / "start.py").write_text("x = 1\n")
    (task / "goal.py").write_text('n.inputs["Emission"].default_value = (1, 1, 1, 1)\n')
    t = load_blendergym_task(task)
    # no task.json: the family is the folder name's prefix, as BlenderGym names its tasks
    assert (t.family, t.family_from) == ("material", "folder name")
    assert (t.base_source, t.base_blend.name) == (None, "blender_file.blend")
    assert t.goal_images == {1: task / "renders" / "goal" / "render1.png"}
    assert [n["new"] for n in t.notes] == ["Emission Color"]
    assert t.goal == 'n.inputs["Emission"].default_value = (1, 1, 1, 1)\n'  # never rewritten
    assert t.spec["shipped_renders"]["goal"][0].endswith("render1.png")
    [loaded] = load_suite(f"blendergym:{tmp_path}")
    assert (loaded.id, loaded.metric, loaded.artifact_kind) == ("material7", "scene_render",
                                                                "scene")
    (task / "task.json").write_text('{"family": "shading", "level": 2}')
    told = load_blendergym_task(task)
    assert (told.family, told.family_from, told.level) == ("shading", "task.json", "2")
    # a goal image instead of a goal program: (B, p0, r0, y*)
    own = tmp_path / "my scene"
    (own / "renders" / "goal").mkdir(parents=True)
    (own / "renders" / "goal" / "render1.png").write_bytes(b"")
    (own / "room.blend").write_bytes(b"")
    (own / "start.py").write_text("x = 1\n")
    t = load_blendergym_task(own)
    assert (t.goal, t.family, t.base_blend.name) == (None, "custom", "room.blend")
    assert t.family_from == "default" and t.level is None  # "my scene": no numbered prefix
    (own / "renders" / "goal" / "render1.png").unlink()
    with pytest.raises(ConfigError, match="not a scene task folder"):
        load_blendergym_task(own)


def test_scene_suite_and_instrument_are_registered() -> None:
    from tether.instruments.base import build_instrument, instrument_names
    from tether.suites.registry import load_suite

    tasks = load_suite("scene")
    assert len(tasks) == 20 and {t.metric for t in tasks} == {"scene_render"}
    assert all(t.artifact_kind == "scene" and t.data["task_dir"] for t in tasks)
    assert "```python" in tasks[0].prompt
    assert "scene_render" in instrument_names()
    inst = build_instrument("scene_render;size=32")
    assert inst.higher_is_better is False and inst.size == 32
