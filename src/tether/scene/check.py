"""`tether scene tasks check`: a scene task is sound when

1. the base builds deterministically: base.py run twice gives the same scene state;
2. the scene the spec describes (task.json `scene`: objects -> [type, data], materials)
   is the scene base.py builds (the minibpy double builds from the spec);
3. start.py and goal.py run on the base without error;
4. their renders are deterministic (two renders of each are byte-identical);
5. the renders match the digests stored in task.json (equal bytes, or pooled PL <= 1e-4);
6. start and goal renders differ (PL > 1e-4): the task asks for a visible edit.

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


def check_task(scenes: TaskScenes, task: SceneTask, *, record: bool = False) -> TaskCheck:
    out = TaskCheck(task.id)
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
