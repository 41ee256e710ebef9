"""One run directory that fills every report section, for the section tests.

Agent trials (`agent`, `turn_bon`) run through the real trial runner with scripted
models (tests/runs/agent_runs.py), judged by a scripted judge; beside them, TrialRecords
shaped like the scene strategies' (valid and invalid renders) and like compiled-harness
trials with and without an intervention; the run's meta carries a scene demo; and a
`tether compile` build directory (a scripted teacher and student) sits inside the run.
"""

from __future__ import annotations

import base64
from pathlib import Path

from tests.report.conftest import make_record, png_bytes
from tests.runs import judge_doubles as jd
from tests.runs.agent_runs import agent_records
from tests.systems.compile.compiler.conftest import compile_toy
from tether.core.artifact import Artifact
from tether.runs.judge import judge_run, load_rubrics, reward_hacking_job, rubric_jobs
from tether.runs.store import RunStore
from tether.systems.compile.strategy import HarnessFacts
from tether.systems.scene.loop.facts import SceneFacts
from tether.testing.scripted_models import ScriptedModel

PNG = base64.b64encode(png_bytes("blue")).decode("ascii")
#: the harness trials: item -> (passes without an intervention, passes with `decide`)
HARNESS_ITEMS = {"i0": (True, True), "i1": (True, False), "i2": (False, False),
                 "i3": (True, True)}


def _scene_record(index: int, task: int, strategy: str, pl: float | None):
    kept = Artifact(kind="png_b64", text=PNG)
    valid = pl is not None
    facts = SceneFacts(
        scene_strategy=strategy, valid=valid, invalid_reason=None if valid else "no_render",
        family="placement", interactions=2, calls={"generator": 2}, executions=3,
        renders=3, submissions=[{"accepted": "raw", "executions": 1}],
        renders_kept={"start": kept.digest, "goal": kept.digest,
                      **({"delivered": kept.digest} if valid else {})}, wall_s=1.0)
    raw = {"pl": pl, "psnr": 20.0, "ssim": 0.9, "edge_f1": 0.5} if valid else None
    rec = make_record(index, f"s{task}", 0, strategy, None, passed=valid,
                      extra=facts.to_extra(), raw=raw, instrument="scene_render")
    return rec, kept


def _harness_record(index: int, item: str, passed: bool, intervention: str | None):
    facts = HarnessFacts(harness_hash="ab" * 32, harness_source="inline", setting="toy",
                         item_id=item, outcome="answered", student_modality="text",
                         intervention=intervention)
    rec = make_record(index, item, 0, "compiled_harness", None, passed=passed,
                      extra=facts.to_extra())
    spec = rec.spec.model_copy(update={"strategy_params": {
        "harness": "inline", **({"intervention": intervention} if intervention else {})}})
    return rec.model_copy(update={"spec": spec, "trial_id": spec.trial_id}), None


def sections_run(run: Path) -> Path:
    """Write the run (see the module docstring) at `run`; returns it."""
    pairs = list(agent_records())
    for i in range(3):
        pairs.append(_scene_record(len(pairs), i, "vetr", None if i == 2 else 0.01))
        pairs.append(_scene_record(len(pairs), i, "scene_one_shot", 0.02))
    for item, (plain, changed) in HARNESS_ITEMS.items():
        pairs.append(_harness_record(len(pairs), item, plain, None))
        pairs.append(_harness_record(len(pairs), item, changed, "decide"))
    with RunStore(run, create=True) as store:
        store.write_config({"suites": ["scripted"]})
        for index, (record, arts) in enumerate(pairs):
            record = record.model_copy(update={"index": index})
            kept = [arts] if isinstance(arts, Artifact) else list((arts or {}).values())
            store.commit_trial(record, kept)
        render = store.put_blob(png_bytes("green"), kind="render")
        store.set_meta("scene_demo", {
            "task": "s0", "label": "edit with a displaced write", "accepted": "raw",
            "executions": 2, "program": "bpy.data.objects['Cube'].location.x = 1",
            "delivered_program": None,
            "renders": {"start": render, "raw": None, "delivered": None, "goal": render},
            "pl": {"start": 0.01, "raw": None, "delivered": None, "goal": 0.0}})
    jobs = [*rubric_jobs(load_rubrics("terminal-behaviour")), reward_hacking_job()]
    judge_run(run, jobs, ScriptedModel(jd.json_judge, model_id="judge-double"))
    compile_toy(run / "build", {"0": "v1", "1": "v2"}, rounds=1, interventions=True)
    return run
