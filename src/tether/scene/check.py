"""`tether scene tasks check`: a scene task is sound when

1. the base builds deterministically: base.py run twice gives the same scene state;
2. the scene the spec describes (task.json `scene`: objects -> [type, data], materials)
   is the scene base.py builds (the minibpy double builds from the spec);
3. start.py and goal.py run on the base without error;
4. their renders are deterministic (two renders of each are byte-identical);
5. the renders match the digests stored in task.json (equal bytes, or pooled PL <= 1e-4);
6. start and goal renders differ (PL > 1e-4): the task asks for a visible edit;
7. (tether's layout) the task runs the same on the minibpy test double: base.py, start.py
   and goal.py end in the state they end in on bpy (floats within float32 tolerance), so
   refiner tests on minibpy exercise the suite's real scenes.

`record=True` writes the digests into task.json instead of checking 5 (for authors).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tether.scene.scenes import TaskScenes
from tether.scene.tasks import RENDER_TOLERANCE_PL, SceneTask, digest, png_rgb, render_matches


@dataclass
class TaskCheck:
    task: str
    problems: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task, "ok": self.ok, "problems": self.problems, **self.details}


def spec_problems(spec: dict[str, Any], state: dict[str, Any]) -> list[str]:
    """Where task.json's scene spec and the built base's state disagree."""
    scene = spec.get("scene") or {}
    built = state["structure"]["objects"]
    data_of = {b["from"][1]: b["to"][1] for b in state["bindings"] if b["path"] == "data"}
    mats = {b["from"][1]: b["to"][1] for b in state["bindings"]
            if b["path"] == "material_slots[0].material"}
    problems = []
    want = scene.get("objects", {})
    if set(want) != set(built):
        problems.append(f"spec objects {sorted(want)} != built {sorted(built)}")
    for name, (kind, data) in want.items():
        if name in built and (built[name]["type"], data_of.get(name)) != (kind, data):
            problems.append(f"spec says {name} is {kind} with data {data}, built "
                            f"{built[name]['type']} with {data_of.get(name)}")
    for name, mat in scene.get("materials", {}).items():
        if mats.get(name) != mat:
            problems.append(f"spec says {name} has material {mat}, built {mats.get(name)}")
    return problems


class _MiniBpySide:
    """The task on minibpy, compared with bpy's states as check_task meets them."""

    def __init__(self, task: SceneTask) -> None:
        from tether.scene.minibpy.executor import MiniBpyExecutor

        assert task.base_source is not None
        self.executor = MiniBpyExecutor(task.base_source, empty=True)

    def problems(self, which: str, source: str, bpy_state: dict[str, Any] | None) -> list[str]:
        from tether.scene.minibpy.compare import differences

        try:
            run = self.executor.execute(source, trace=False, filename=f"{which}.py")
        except Exception as exc:  # noqa: BLE001 - a base the double cannot build
            return [f"minibpy: base.py does not build ({type(exc).__name__}: {exc})"]
        if not run.ok:
            error = run.error or {}
            return [f"minibpy: {which}.py: {error.get('kind')} at line {error.get('line')}: "
                    f"{error.get('message', '')}".splitlines()[0]]
        diffs = differences(run.state, bpy_state)
        return [f"minibpy: {which} state differs from bpy's at {d}" for d in diffs[:3]]


def check_task(scenes: TaskScenes, task: SceneTask, *, record: bool = False) -> TaskCheck:
    out = TaskCheck(task.id)
    mini = _MiniBpySide(task) if task.base_source is not None else None
    if task.base_source is not None:
        try:
            first = scenes.run(task, "", trace=False)  # the cached base (built if new)
            _, rebuilt = scenes.build_base(task)
        except Exception as exc:  # noqa: BLE001 - a base that does not build is the finding
            out.problems.append(f"base: {exc}")
            return out
        if first.state != rebuilt.state:
            out.problems.append("base: two builds of base.py differ in state (not deterministic)")
        out.problems += [f"spec: {p}" for p in spec_problems(task.spec, first.state or {})]
        if mini is not None:
            out.problems += (base_problems := mini.problems("base", "", first.state))
            if base_problems:
                mini = None  # the programs' states would differ for the same reason
    renders: dict[str, bytes] = {}
    for which, source in (("start", task.start), ("goal", task.goal)):
        png, result = scenes.render(task, source, cached=False)
        again, _ = scenes.render(task, source, cached=False)
        if png is None:
            error = (result.error if result else None) or {}
            out.problems.append(f"{which}.py: {error.get('kind')} at line {error.get('line')}: "
                                f"{error.get('message', '')}".splitlines()[0])
            continue
        renders[which] = png
        if mini is not None and result is not None:
            out.problems += mini.problems(which, source, result.state)
        if again != png:
            out.problems.append(f"{which}: two renders differ (not deterministic)")
        stored = (task.spec.get("digests") or {}).get(which)
        if record:
            continue
        if stored is None:
            out.problems.append(f"{which}: no stored digest in task.json (run with --record)")
            continue
        ok, pl = render_matches(png, stored)
        out.details[f"{which}_pl_vs_stored"] = pl
        if not ok:
            out.problems.append(f"{which}: render differs from the stored digest "
                                f"(pooled PL {pl:.3g} > {RENDER_TOLERANCE_PL:g})")
    if len(renders) == 2:
        from tether.scene.metrics import pl

        gap = pl(png_rgb(renders["start"]), png_rgb(renders["goal"]))
        out.details["start_goal_pl"] = gap
        if gap <= RENDER_TOLERANCE_PL:
            out.problems.append(f"start and goal render alike (PL {gap:.3g}): no visible edit")
        if record:
            spec = dict(task.spec)
            spec["digests"] = {k: digest(v) for k, v in renders.items()}
            (task.dir / "task.json").write_text(json.dumps(spec, indent=2) + "\n")
    for note in task.notes:
        out.details.setdefault("notes", []).append(note)
    return out
