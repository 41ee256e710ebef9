"""The bundled scene suite on both backends: every task's base.py, start.py and goal.py run
on minibpy (the test double, held to task.json's scene spec) and give the same traces and
final state as on real bpy (floats within float32 tolerance); and on real bpy, traced and
untraced executions of every start and goal program end in identical state."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tether.errors import ConfigError
from tether.systems.scene.executor import RenderSettings
from tether.systems.scene.tasks import SceneTask, bundled_task_dirs, bundled_tasks_dir, load_task
from tether.testing.minibpy.compare import differences
from tether.testing.minibpy.executor import MiniBpyExecutor

TASKS = [p.name for p in bundled_task_dirs()]
PROGRAMS = ("start", "goal")


def test_differences_allow_float32_rounding_and_nothing_else() -> None:
    assert differences({"b": [0.6999998688697815, 1]}, {"b": [0.699999988079071, 1]}) == []
    assert differences([0.5], [0.5001]) == ["[0]: 0.5 != 0.5001"]
    assert differences({"u": 2}, {"u": 1}) == [".u: 2 != 1"]
    assert differences([1.0, 2.0], [1.0]) == [": [1.0, 2.0] != [1.0]"]
    assert differences({"a": 1, "b": 2}, {"b": 2, "a": 1}) == [": key order differs"]
    assert differences({"a": 1}, {"b": 1}) == [": keys ['a', 'b'] are on one side only"]
    assert differences(True, 1.0) != []


# --- minibpy alone (no Blender needed) -------------------------------------------------


@pytest.fixture(scope="module")
def mini_runs() -> dict[tuple[str, str], Any]:
    runs = {}
    for name in TASKS:
        task = load_task(bundled_tasks_dir() / name)
        ex = MiniBpyExecutor.for_task(task)
        for which in PROGRAMS:
            runs[name, which] = ex.execute(getattr(task, which), filename=f"{which}.py")
    return runs


@pytest.mark.parametrize("name", TASKS)
def test_every_task_runs_on_minibpy(name: str, mini_runs) -> None:
    start, goal = mini_runs[name, "start"], mini_runs[name, "goal"]
    for run in (start, goal):
        assert run.ok and run.error is None and run.events and not run.unresolved
        assert not run.contaminated
    spec = load_task(bundled_tasks_dir() / name).spec["scene"]
    assert set(start.state["structure"]["objects"]) == set(spec["objects"])
    assert start.state != goal.state  # every task's goal edit is visible in the state


@pytest.mark.parametrize("name", TASKS)
def test_a_patch_of_the_cell_diff_takes_start_to_the_goal_cells(name: str, mini_runs) -> None:
    """diff_writes(start, goal) compiled and run after start.py writes every differing
    cell the two share (node-group sockets included); blocks only the goal creates (a
    rebound copy) are the refiner's copy-and-rebind, not a cell diff."""
    from tether.systems.scene.patch import compile_patch, diff_writes

    start, goal = mini_runs[name, "start"].state, mini_runs[name, "goal"].state
    writes = diff_writes(start, goal)
    task = load_task(bundled_tasks_dir() / name)
    patched = MiniBpyExecutor.for_task(task).execute(task.start + "\n" + compile_patch(writes))
    assert patched.ok, patched.error
    assert len(patched.events) == len(mini_runs[name, "start"].events) + len(writes)
    for w in writes:
        assert differences(patched.state["cells"][w.cell], goal["cells"][w.cell]) == [], w
    if not any(".copy()" in line for line in task.goal.splitlines()):
        assert writes and differences(patched.state["cells"], goal["cells"]) == []


@pytest.mark.parametrize("name", TASKS)
def test_the_test_double_renders_every_goal_edit(name: str) -> None:
    """The rasterizer is no Cycles, but start and goal of every task draw differently
    (lights, emission, shape keys, node-group transforms and inputs, rotations), and the
    same program draws the same bytes."""
    task = load_task(bundled_tasks_dir() / name)
    ex = MiniBpyExecutor.for_task(task)
    settings = RenderSettings(size=32, samples=1)
    start, goal, again = (ex.execute(src, trace=False, render=settings).render_png
                          for src in (task.start, task.goal, task.goal))
    assert start[:4] == b"\x89PNG" and start != goal and goal == again


def test_the_suite_has_twenty_tasks_on_five_bases() -> None:
    tasks = [load_task(bundled_tasks_dir() / n) for n in TASKS]
    assert len(tasks) == 20 and len({t.base_key for t in tasks}) == 5


def _copy(name: str, tmp_path: Path) -> Path:
    dst = tmp_path / name
    shutil.copytree(bundled_tasks_dir() / name, dst)
    return dst


def test_minibpy_refuses_a_task_its_spec_or_api_does_not_cover(tmp_path) -> None:
    task = _copy("material_right_red", tmp_path)
    spec = json.loads((task / "task.json").read_text())
    spec["scene"]["materials"]["Left"] = "Metal"
    (task / "task.json").write_text(json.dumps(spec))
    with pytest.raises(ConfigError, match="spec says Left has material Metal, built Paint"):
        MiniBpyExecutor.for_task(load_task(task))

    for name, edit, message in (
        ("geometry_tower_a_height", lambda sc: sc["modifiers"]["TowerB"][0].__setitem__(2, "G"),
         "spec says TowerB has modifiers [['Shape', 'NODES', 'G']], built "
         "[['Shape', 'NODES', 'Stack']]"),
        ("geometry_tower_b_thin",
         lambda sc: sc["node_groups"]["Stack"]["inputs"]["Width"].__setitem__(1, 2.0),
         "spec says Stack input Width is Socket_2 = 2.0, built TowerA holds 1.0"),
        ("blendshape_stretch", lambda sc: sc["shape_keys"]["Blob"].append("Twist"),
         "spec says mesh Blob has shape keys ['Basis', 'Stretch', 'Squash', 'Twist'], built "
         "[['Basis', 'Squash', 'Stretch']]"),
    ):
        task = _copy(name, tmp_path)
        spec = json.loads((task / "task.json").read_text())
        edit(spec["scene"])
        (task / "task.json").write_text(json.dumps(spec))
        with pytest.raises(ConfigError) as info:
            MiniBpyExecutor.for_task(load_task(task))
        assert f"task.json's spec: {message}" in str(info.value), str(info.value)

    task = _copy("placement_box_back", tmp_path)
    with (task / "base.py").open("a") as f:
        f.write("bmesh.ops.create_icosphere(bmesh.new(), subdivisions=2, radius=1.0)\n")
    with pytest.raises(ConfigError, match="does not build on minibpy .*create_icosphere"):
        MiniBpyExecutor.for_task(load_task(task))

    gym = tmp_path / "material7"
    gym.mkdir()
    (gym / "blender_file.blend").write_bytes(b"BLENDER")
    for name in ("start.py", "goal.py"):
        (gym / name).write_text("import bpy\n")
    from tether.systems.scene.blendergym import load_blendergym_task

    with pytest.raises(ConfigError, match="ships a .blend"):
        MiniBpyExecutor.for_task(load_blendergym_task(gym))


# --- against real bpy ------------------------------------------------------------------


class BpyRuns:
    """Executions on real Blender, each made once: (task, program, traced) -> Execution."""

    def __init__(self, scenes: Any) -> None:
        self.scenes = scenes
        self.done: dict[tuple[str, str, bool], Any] = {}

    def __call__(self, name: str, which: str, traced: bool) -> Any:
        key = (name, which, traced)
        if key not in self.done:
            task: SceneTask = load_task(bundled_tasks_dir() / name)
            self.done[key] = self.scenes.run(task, getattr(task, which), trace=traced,
                                             filename=f"{which}.py")
        return self.done[key]


@pytest.fixture(scope="module")
def bpy_runs(tmp_path_factory) -> Iterator[BpyRuns]:
    pytest.importorskip("bpy")
    from tether.sandbox import BwrapSandbox, SandboxUnavailable
    from tether.systems.scene.scenes import TaskScenes

    try:
        BwrapSandbox()
    except SandboxUnavailable as exc:
        pytest.skip(f"bwrap unavailable: {exc}")
    with TaskScenes(tmp_path_factory.mktemp("scene-cache")) as scenes:
        yield BpyRuns(scenes)


@pytest.mark.parametrize("name", TASKS)
def test_minibpy_gives_bpys_trace_and_state_on_every_task(name: str, bpy_runs,
                                                          mini_runs) -> None:
    for which in PROGRAMS:
        real, mini = bpy_runs(name, which, True), mini_runs[name, which]
        assert real.ok and mini.ok, (which, real.error)
        assert mini.events == real.events and mini.unresolved == real.unresolved, which
        assert mini.state["bindings"] == real.state["bindings"], which
        assert differences(mini.state, real.state) == [], which


@pytest.mark.parametrize("name", TASKS)
def test_traced_and_untraced_bpy_runs_end_in_identical_state(name: str, bpy_runs) -> None:
    states = {}
    for which in PROGRAMS:
        traced, untraced = bpy_runs(name, which, True), bpy_runs(name, which, False)
        assert traced.ok and untraced.ok and traced.events and not untraced.events
        assert traced.state == untraced.state, which
        states[which] = traced.state
    assert states["start"] != states["goal"]  # the comparison can fail
