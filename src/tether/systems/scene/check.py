"""`tether scene tasks check`: a scene task is sound when

1. the base builds deterministically: base.py run twice gives the same scene state;
2. the scene the spec describes (task.json `scene`: objects -> [type, data], materials,
   modifiers -> [name, type, node group], node-group inputs -> [identifier, default],
   shape-key names) is the scene base.py builds, on bpy and on the minibpy double;
3. start.py and goal.py run on the base without error;
4. their renders are deterministic (two renders of each are byte-identical);
5. the renders match the digests stored in task.json (equal bytes, or pooled PL <= 1e-4);
6. start and goal renders differ (PL > 1e-4): the task asks for a visible edit;
7. (tether's layout) the task runs the same on the minibpy test double: base.py, start.py
   and goal.py end in the state they end in on bpy (floats within float32 tolerance), so
   refiner tests on minibpy exercise the suite's real scenes.

The result names the task's family and where it came from (task.json, the folder name's
prefix, or the default), so a BlenderGym folder's grouping is visible before a run.
`record=True` writes the digests into task.json instead of checking 5 (for authors).
A folder without stored digests (a user's own scene) is never written to: its digests
are kept in the cache, `<cache>/checks/<folder content sha256>.json`, recorded on the
first check and compared on the next. A task with a goal image has its start render
compared with that image (the goal, as goals.py scores it), goal.py or not; goal.py, when
there is one, is still run, rendered twice and compared with its stored digest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tether.systems.scene.blendergym import DERIVED_KEYS
from tether.systems.scene.metrics import match_size, pl
from tether.systems.scene.minibpy_backend import minibpy_executor, state_differences
from tether.systems.scene.scenes import TaskScenes
from tether.systems.scene.spec_check import spec_problems
from tether.systems.scene.tasks import (
    RENDER_TOLERANCE_PL,
    SceneTask,
    digest,
    folder_hash,
    png_rgb,
    render_matches,
)


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


class _MiniBpySide:
    """The task on minibpy, compared with bpy's states as check_task meets them."""

    def __init__(self, task: SceneTask) -> None:
        assert task.base_source is not None
        self.executor = minibpy_executor()(task.base_source, empty=True)

    def problems(self, which: str, source: str, bpy_state: dict[str, Any] | None) -> list[str]:
        try:
            run = self.executor.execute(source, trace=False, filename=f"{which}.py")
        except Exception as exc:  # noqa: BLE001 - a base the double cannot build
            return [f"minibpy: base.py does not build ({type(exc).__name__}: {exc})"]
        if not run.ok:
            error = run.error or {}
            return [f"minibpy: {which}.py: {error.get('kind')} at line {error.get('line')}: "
                    f"{error.get('message', '')}".splitlines()[0]]
        diffs = state_differences(run.state, bpy_state)
        return [f"minibpy: {which} state differs from bpy's at {d}" for d in diffs[:3]]


def check_task(scenes: TaskScenes, task: SceneTask, *, record: bool = False) -> TaskCheck:
    out = TaskCheck(task.id, details={"family": task.family, "family_from": task.family_from})
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
    stored_digests = dict(task.spec.get("digests") or {})
    cache_file = None
    if not stored_digests and not record:
        cache_file = scenes.root / "checks" / f"{folder_hash(task.dir)}.json"
        if cache_file.is_file():
            stored_digests = json.loads(cache_file.read_text()).get("digests", {})
            out.details["digests_from"] = str(cache_file)
    programs = [("start", task.start)]
    if task.goal is not None:
        programs.append(("goal", task.goal))
    else:
        goal_image = task.goal_images.get(1)
        try:
            png_rgb(goal_image.read_bytes()) if goal_image else None
            if goal_image is not None:
                renders["goal"] = goal_image.read_bytes()
        except Exception as exc:  # noqa: BLE001 - an unreadable goal image is the finding
            out.problems.append(f"goal image {goal_image}: {exc}")
        if goal_image is None:
            out.problems.append("no goal: neither goal.py nor renders/goal/render1.png")
    for which, source in programs:
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
        stored = stored_digests.get(which)
        if record or (stored is None and cache_file is not None):
            continue
        if stored is None:
            out.problems.append(f"{which}: no stored digest in task.json (run with --record)")
            continue
        ok, stored_pl = render_matches(png, stored)
        out.details[f"{which}_pl_vs_stored"] = stored_pl
        if not ok:
            out.problems.append(f"{which}: render differs from the stored digest "
                                f"(pooled PL {stored_pl:.3g} > {RENDER_TOLERANCE_PL:g})")
    if len(renders) == 2:
        # the goal is the supplied image where there is one (goals.py), else goal.py's render
        image = task.goal_images.get(1)
        try:
            goal_rgb = png_rgb(image.read_bytes() if image is not None else renders["goal"])
        except Exception as exc:  # noqa: BLE001 - an unreadable goal image is the finding
            out.problems.append(f"goal image {image}: {exc}")
            return out
        gap = pl(match_size(png_rgb(renders["start"]), goal_rgb), goal_rgb)
        out.details["start_goal_pl"] = gap
        if gap <= RENDER_TOLERANCE_PL:
            out.problems.append(f"start and goal render alike (PL {gap:.3g}): no visible edit")
        digests = {k: digest(v) for k, v in renders.items()
                   if k == "start" or task.goal is not None}
        if record:
            spec = {k: v for k, v in task.spec.items() if k not in DERIVED_KEYS}
            spec["digests"] = digests
            (task.dir / "task.json").write_text(json.dumps(spec, indent=2) + "\n")
        elif cache_file is not None and "digests_from" not in out.details and not out.problems:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            cache_file.write_text(json.dumps({"task": str(task.dir), "digests": digests}))
            out.details["digests_cached"] = str(cache_file)
    for note in task.notes:
        out.details.setdefault("notes", []).append(note)
    return out
