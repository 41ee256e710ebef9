"""The host loop (Algorithm 2) and the scene baselines on real Blender, with scripted roles.

The generator, verifier and judge are ScriptedModel test doubles; the refiner is
`refiner_off` or a scripted wrapper of it that records what it was given. Renders are
64x64 at 4 samples; one TaskScenes (one warm worker) serves the module.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

pytest.importorskip("bpy")

from tether.context import TrialContext  # noqa: E402
from tether.core.budget import BudgetSpec  # noqa: E402
from tether.core.trial import TrialSpec  # noqa: E402
from tether.systems.scene.loop.baselines import BlenderAlchemy, SceneOneShot  # noqa: E402
from tether.systems.scene.loop.host import HostLoop  # noqa: E402
from tether.systems.scene.loop.params import HostParams  # noqa: E402
from tether.systems.scene.loop.session import CHAIN_SEPARATOR, SceneSession  # noqa: E402
from tether.systems.scene.loop.strategies import Viga  # noqa: E402
from tether.systems.scene.record import refiner_off  # noqa: E402
from tether.systems.scene.scenes import TaskScenes  # noqa: E402
from tether.systems.scene.suite import to_task  # noqa: E402
from tether.systems.scene.tasks import bundled_tasks_dir, load_task  # noqa: E402
from tether.testing.scripted_models import ScriptedModel  # noqa: E402

SMALL = {"size": 64, "samples": 4}
BOX = "placement_box_back"
MOVE = 'import bpy\nbpy.data.objects["Box"].location = (0.0, {y}, 0.5)\n'
RAISES = 'import bpy\nbpy.data.objects["Nope"].location.x = 1.0\n'


def edit(program: str, verify: bool = True) -> str:
    """An edit reply; `verify` asks for the verifier (the paper: when the tool requests it)."""
    return f"ACTION: edit{' verify' if verify else ''}\nTrying this.\n```python\n{program}```\n"


END = "ACTION: end\nDone."


@pytest.fixture(scope="module")
def scenes(tmp_path_factory, bwrap) -> Iterator[TaskScenes]:
    with TaskScenes(tmp_path_factory.mktemp("scene-cache")) as s:
        yield s


def context(name: str, generator, *, verifier=None, judge=None,
            budget: BudgetSpec | None = None, images: bool = False) -> TrialContext:
    task = to_task(load_task(bundled_tasks_dir() / name), "scene")
    spec = TrialSpec(suite="scene", task_id=task.id, strategy="vetr",
                     models={"proposer": "g", "verifier": "v", "judge": "j"},
                     budget=budget or BudgetSpec())
    return TrialContext(spec, task, {
        # doubles standing in for VLMs say so (images=True), as a VLM backend does
        "proposer": ScriptedModel(generator, accepts_images=images),
        "verifier": ScriptedModel(verifier or (lambda m, i: "Move the box further back."),
                                  accepts_images=images),
        "judge": ScriptedModel(judge or (lambda m, i: "A"), accepts_images=images),
    })


def per_round(rounds: list[list[str]], n: int):
    """Generator script: interaction t's i-th candidate is rounds[t][i] (then END)."""
    return lambda m, info: (rounds[info.call_number // n][info.sample_index]
                            if info.call_number // n < len(rounds) else END)


class RecordingRefiner:
    """Scripted refiner: refiner_off, recording the previous record each call was given."""

    def __init__(self) -> None:
        self.previous: list[str] = []
        self.programs: list[str] = []

    def __call__(self, program, *, executor, previous, initial, render, base=None):
        self.previous.append(previous.program)
        self.programs.append(program)
        return refiner_off(program, executor=executor, previous=previous, initial=initial,
                           render=render, base=base)


def loop(scenes, refiner=refiner_off, **cfg) -> HostLoop:
    return HostLoop(HostParams(**{**SMALL, **cfg}), refiner, scenes=scenes)


def test_n4_votes_the_action_executes_only_that_type_and_the_judge_selects(scenes) -> None:
    rounds = [[edit(MOVE.format(y=1.0)), "ACTION: plan\nmove it", edit(MOVE.format(y=2.0)),
               "garbage"]]
    refiner = RecordingRefiner()
    ctx = context(BOX, per_round(rounds, 4), judge=lambda m, i: "B")
    result = loop(scenes, refiner, n=4).run(ctx)
    f = result.facts
    assert f.rounds[0]["actions"] == ["edit", "plan", "edit", None]
    assert f.rounds[0]["chosen"] == "edit" and f.invalid_replies == 1 + 0
    assert len(refiner.programs) == 2  # only the two edits were executed and refined
    assert f.calls == {"generator": 8, "judge": 1, "verifier": 1}  # k - 1 = 1 comparison
    assert [s["selected"] for s in f.submissions] == [False, True]
    assert result.artifact.text == MOVE.format(y=2.0)  # the judge's B
    assert f.valid and f.stop_reason == "end" and f.interactions == 2
    # z0 is observed without a render (its render is the start image r0)
    assert f.executions == 3 and f.renders == 2
    roles = {c.role for c in ctx.calls}
    assert roles == {"generator", "judge", "verifier"}
    assert set(ctx.ledger.spent) >= {"generator", "judge", "verifier"}


def test_n1_costs_a_quarter_of_the_generator_samples_and_no_judge_call(scenes) -> None:
    seen: list[list[dict]] = []
    script = per_round([[edit(MOVE.format(y=2.0))]], 1)
    ctx = context(BOX, lambda m, i: seen.append(m) or script(m, i), images=True)
    f = loop(scenes, n=1, modality="image").run(ctx).facts
    assert f.calls == {"generator": 2, "judge": 0, "verifier": 1}
    assert f.executions == 2 and f.renders == 1
    # as a VLM the generator saw the goal and start renders, then the delivered one
    kinds = [[p["type"] for p in m["content"] if isinstance(p, dict)]
             for m in seen[1] if isinstance(m["content"], list)]
    assert sum(k.count("image_url") for k in kinds) == 3
    assert f.modality == {"generator": "image", "verifier": "image", "judge": "image"}


def test_the_verifier_runs_when_the_edit_asks_or_every_edit_when_configured(scenes) -> None:
    script = per_round([[edit(MOVE.format(y=2.0), verify=False)]], 1)
    f = loop(scenes).run(context(BOX, script)).facts
    assert f.calls["verifier"] == 0 and f.rounds[0]["verify_requested"] is False
    f = loop(scenes, verify="every_edit").run(context(BOX, script)).facts
    assert f.calls["verifier"] == 1


def test_only_the_selected_outcome_advances_the_previous_record(scenes) -> None:
    a, b = MOVE.format(y=1.0), MOVE.format(y=3.0)
    rounds = [[edit(a), edit(b)], [edit(MOVE.format(y=2.0)), edit(MOVE.format(y=1.5))]]
    refiner = RecordingRefiner()
    start = load_task(bundled_tasks_dir() / BOX).start
    result = loop(scenes, refiner, n=2, verifier=False).run(
        context(BOX, per_round(rounds, 2), judge=lambda m, i: "A"))
    # both candidates of an interaction are refined against the same previous record
    assert refiner.previous == [start, start, a, a]
    assert result.artifact.text == MOVE.format(y=2.0)
    assert result.facts.answer_interaction == 2 and result.facts.calls["verifier"] == 0


def test_plan_and_inspect_use_interactions_never_the_refiner_and_t_caps(scenes) -> None:
    seen: list[list[dict]] = []

    def generator(messages, info):
        seen.append(messages)
        return ["ACTION: plan\nMove the box back by two.", "ACTION: inspect"][info.call_number % 2]

    refiner = RecordingRefiner()
    ctx = context(BOX, generator)
    result = loop(scenes, refiner, max_interactions=3).run(ctx)
    f = result.facts
    assert refiner.programs == [] and f.interactions == 3 and f.stop_reason == "cap"
    assert [r["chosen"] for r in f.rounds] == ["plan", "inspect", "plan"]
    text = str(seen[2])
    assert "Your plan (pinned):\\nMove the box back by two." in text
    assert 'bpy.data.objects["Box"].location = [0.0, 0.0, 0.5]' in text  # inspect
    # no render was generated: invalid, not scored
    assert result.artifact is None and not f.valid and f.invalid_reason == "no_render"
    assert f.executions == 1  # z0 only


def test_failing_edits_deliver_the_start_and_leave_the_run_invalid(scenes) -> None:
    seen: list[str] = []

    def generator(messages, info):
        seen.append(str(messages))
        return [edit(RAISES), "no action here", END][min(info.call_number, 2)]

    result = loop(scenes).run(context(BOX, generator))
    f = result.facts
    assert [s["accepted"] for s in f.submissions] == ["previous"]
    assert f.submissions[0]["error"] == "raised" and not f.submissions[0]["generated"]
    assert f.invalid_replies == 1 and not f.valid and result.artifact is None
    assert "Your program failed (raised at line 2)" in seen[1]
    assert "No valid action could be read" in seen[2]


def test_a_timeout_is_invalid_even_with_a_rendered_answer(scenes, monkeypatch) -> None:
    ticks = iter(range(1000))
    monkeypatch.setattr(SceneSession, "elapsed", lambda self: float(next(ticks)) * 10)
    ctx = context(BOX, per_round([[edit(MOVE.format(y=2.0))]] * 5, 1))
    result = loop(scenes, timeout_s=25).run(ctx)
    assert result.status == "timeout" and result.facts.invalid_reason == "timeout"
    # three interactions started before 25 s (0, 10, 20): each delivered a render
    assert result.facts.interactions == 3 and result.facts.answer_interaction == 3
    assert result.artifact is None


def test_budget_ends_the_loop_normally_and_keeps_the_answer(scenes) -> None:
    ctx = context(BOX, per_round([[edit(MOVE.format(y=2.0))]] * 5, 1),
                  budget=BudgetSpec(total=60))
    result = loop(scenes, max_tokens=40).run(ctx)
    assert result.facts.stop_reason == "budget" and result.facts.valid
    assert result.artifact.text == MOVE.format(y=2.0)


def test_persistent_scene_chains_the_delivered_programs(scenes) -> None:
    lift = 'import bpy\nbpy.data.objects["Box"].location.z = 1.5\n'
    strategy = Viga(Viga.Params(**SMALL))
    strategy.scenes = scenes
    result = strategy.run(context(BOX, per_round([[edit(MOVE.format(y=2.0))], [edit(lift)]], 1)))
    text = result.artifact.text
    assert text == MOVE.format(y=2.0) + CHAIN_SEPARATOR + lift
    assert result.facts.settings["persistent"] and result.facts.calls["verifier"] == 2


def test_one_shot_and_blender_alchemy_counts(scenes) -> None:
    one = SceneOneShot(SceneOneShot.Params(**SMALL))
    one.scenes = scenes
    f = one.run(context(BOX, lambda m, i: edit(MOVE.format(y=2.0)))).facts
    assert f.valid and f.executions == 2 and f.calls == {"generator": 1}
    bad = one.run(context(BOX, lambda m, i: edit(RAISES)))
    assert bad.artifact is None and bad.facts.invalid_reason == "no_render"

    alchemy = BlenderAlchemy(BlenderAlchemy.Params(**SMALL))
    alchemy.scenes = scenes
    ys = iter([1.0, 2.0, 2.5, 1.5])
    result = alchemy.run(context(BOX, lambda m, i: edit(MOVE.format(y=next(ys))),
                                 judge=lambda m, i: "B" if i.call_number == 1 else "A"))
    f = result.facts
    # depth 2 x breadth 2: 4 generator samples, 4 executions + z0, 2 + 2 judge comparisons
    assert f.calls == {"generator": 4, "judge": 4} and f.executions == 5
    assert result.artifact.text == MOVE.format(y=2.0)  # depth 1 picked y=2, depth 2 kept it
    assert f.answer_interaction == 1


def test_vetr_strategy_runs_through_the_runner_with_the_scene_metric(scenes, monkeypatch) -> None:
    import tether.systems.scene.instrument as instrument
    from tether.runs.trial_runner import run_trial

    monkeypatch.setattr(instrument, "_SCENES", scenes)
    monkeypatch.setattr(instrument, "_SCENES_PID", os.getpid())
    task = to_task(load_task(bundled_tasks_dir() / BOX), "scene")
    goal = load_task(bundled_tasks_dir() / BOX).goal
    spec = TrialSpec(suite="scene", task_id=task.id, strategy="vetr",
                     strategy_params={"refiner": "off", **SMALL},
                     models={"proposer": "scripted"})
    script = per_round([[edit(goal)]], 1)
    record, _ = run_trial(spec, task, model_factory=lambda s: ScriptedModel(script))
    assert record.status == "ok" and record.metric is not None
    assert record.metric.score <= 1e-4  # the goal program scores the goal's PL
    assert record.extra["scene_strategy"] == "vetr" and record.extra["valid"]
    assert {c.role for c in record.calls} == {"generator", "verifier"}


def test_a_run_that_delivered_nothing_is_not_ok_in_the_run_table(scenes, monkeypatch,
                                                                  tmp_path) -> None:
    """The embedded model's failure mode, scripted: no reply has an action, so nothing is
    executed and the trial is invalid (no_render); the table `tether run` prints ends
    with it under `invalid`, not `ok`."""
    import json

    from click.testing import CliRunner

    import tether.systems.scene.instrument as instrument
    from tether.cli.hub import main

    monkeypatch.setattr(instrument, "_SCENES", scenes)
    monkeypatch.setattr(instrument, "_SCENES_PID", os.getpid())
    config = tmp_path / "scene.toml"
    config.write_text(f"""suites = ["scene"]
tasks = ["{BOX}"]
[models]
proposer = {json.dumps("scripted:" + json.dumps(["I would move the box."] * 2))}
[[strategies]]
name = "vetr"
params = {{max_interactions = 2, size = 64, samples = 4}}
[run]
concurrency = 1
""")
    res = CliRunner().invoke(main, ["run", str(config), "--out", str(tmp_path / "run")],
                             terminal_width=200)
    assert res.exit_code == 0, res.output
    header = next(line for line in res.output.splitlines() if "arm" in line and "budget" in line)
    row = next(line for line in res.output.splitlines() if line.strip("│┃ ").startswith("vetr"))
    cells = dict(zip([c.strip() for c in header.split("┃")], [c.strip() for c in row.split("│")],
                     strict=False))
    assert cells["ok"] == "0" and cells["invalid"] == "1" and cells["mean score"] == "-", res.output


def test_tether_run_and_report_on_the_scene_suite(scenes, monkeypatch, tmp_path) -> None:
    """`tether run` with scripted roles (one model serves all three), then `tether report`;
    N-CLIP and LPIPS from small RANDOMLY INITIALISED ONNX networks (their values mean
    nothing; that they reach the report is what is tested)."""
    import json

    pytest.importorskip("onnx")
    from click.testing import CliRunner

    import tether.systems.scene.instrument as instrument
    from tests.systems.scene.test_learned import random_clip, random_lpips
    from tether.cli.hub import main

    monkeypatch.setattr(instrument, "_SCENES", scenes)
    monkeypatch.setattr(instrument, "_SCENES_PID", os.getpid())
    monkeypatch.setenv("TETHER_CLIP_ONNX", str(random_clip(tmp_path / "clip.onnx")))
    monkeypatch.setenv("TETHER_LPIPS_ONNX", str(random_lpips(tmp_path / "lpips.onnx")))
    noop = "import bpy\n"  # renders the base scene: a valid, poor answer on any task
    script = json.dumps([edit(noop), "The box is not where the goal has it.", END])
    small = "size = 64, samples = 4"
    config = tmp_path / "scene.toml"
    config.write_text(f"""name = "scene-cli"
suites = ["scene"]
tasks = ["{BOX}", "material_right_red"]
[models]
proposer = {json.dumps("scripted:" + script)}
[[strategies]]
name = "scene_one_shot"
params = {{{small}}}
[[strategies]]
name = "vetr"
params = {{refiner = "off", {small}}}
[run]
concurrency = 1
""")
    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", str(config), "--out", str(out)])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["report", str(out), "--out", str(tmp_path / "r.html")])
    assert res.exit_code == 0, res.output

    html = (tmp_path / "r.html").read_text()
    assert "Scene programs (VETR)" in html and "scene_one_shot vs vetr" in html
    assert html.count("data:image/png;base64,") == 2 * 2 + 4  # start + goal, 4 delivered
    for column in ("<th>N-CLIP</th>", "<th>LPIPS</th>", "<th>CLIP</th>"):
        assert column in html, column
    from tether.report.data import build_report
    from tether.runs.store import RunStore

    with RunStore(out) as store:
        summary = build_report(store).numbers["scene"]["summary"]
    for row in summary:  # every valid trial measured both learned metrics
        overall = row["overall"]
        assert overall["valid"] == 2 and overall["coverage"]["n_clip"] == 2
        assert overall["coverage"]["lpips"] == 2
        assert 0 <= overall["means"]["n_clip"] <= 2 and overall["means"]["lpips"] >= 0


def test_trace_summaries_and_shared_verifier_memory_switches(scenes) -> None:
    gen_seen: list[str] = []
    ver_seen: list[list[dict]] = []

    def generator(messages, info):
        gen_seen.append(str(messages))
        return [edit(MOVE.format(y=1.0)), edit(MOVE.format(y=2.0)), END][min(info.call_number, 2)]

    def verifier(messages, info):
        ver_seen.append(messages)
        return f"round {info.call_number}: move it further"

    run = loop(scenes, show_trace=True, verifier_memory=True)
    run.run(context(BOX, generator, verifier=verifier))
    assert "Observed writes of your program:" in gen_seen[1]
    assert "objects['Box'].location = [0.0, 1.0, 0.5]" in gen_seen[1]
    assert len(ver_seen[0]) == 2 and len(ver_seen[1]) == 4  # its own round 0 kept
    assert ver_seen[1][2] == {"role": "assistant", "content": "round 0: move it further"}
    # off by default: no trace, a verifier reset each round
    gen_seen.clear(), ver_seen.clear()
    loop(scenes).run(context(BOX, generator, verifier=verifier))
    assert "Observed writes" not in gen_seen[1] and [len(m) for m in ver_seen] == [2, 2]
    # shared memory (w/o role asymmetry): the verifier reads the generator's window, its
    # own system prompt in place of the generator's, then its request
    ver_seen.clear()
    facts = loop(scenes, shared_memory=True).run(context(BOX, generator, verifier=verifier)).facts
    assert [len(m) for m in ver_seen] == [4, 6] and facts.settings["shared_memory"]
    first, second = ver_seen
    assert first[0]["content"].startswith("You check a Blender scene edit")
    assert "The edit:" in str(first[1]["content"]) and "You edit Blender" not in str(first)
    assert first[2]["role"] == "assistant" and first[2]["content"] == edit(MOVE.format(y=1.0))
    assert "Verifier: round 0: move it further" in str(second[3]["content"])


# A correct program that resets the box to its start position, then sets the goal one.
RESET_THEN_SET = ('import bpy\nbox = bpy.data.objects["Box"]\n'
                  "box.location = (0.0, 0.0, 0.5)\nbox.location = (0.0, 2.0, 0.5)\n")


def test_reset_then_set_is_repaired_back_to_the_reset_value_at_n1(scenes) -> None:
    """The recovery rule takes the latest write that differs from the final value as a
    displaced request: the reset. At N = 1 no judge compares the repair with the raw
    program, so the repair is delivered; the verifier is shown the repaired render and the
    generator that resubmits the same program gets the same repair again."""
    from tether.systems.scene.refiner import refine

    seen: list[str] = []

    def verifier(messages, info) -> str:
        seen.append(str(messages))
        return "The box is still at the front; move it back."

    script = per_round([[edit(RESET_THEN_SET)], [edit(RESET_THEN_SET)]], 1)
    ctx = context(BOX, script, verifier=verifier)
    result = loop(scenes, refine, n=1).run(ctx)
    f = result.facts
    assert [s["accepted"] for s in f.submissions] == ["recovery_current"] * 2
    assert all(s["selected"] for s in f.submissions)
    assert f.calls == {"generator": 3, "judge": 0, "verifier": 2} and len(seen) == 2
    delivered = result.artifact.text
    assert delivered.startswith(RESET_THEN_SET) and "# tether refine: recovery_current" in delivered
    assert delivered.rstrip().endswith("(0.0, 0.0, 0.5)")  # the goal edit undone
    task = load_task(bundled_tasks_dir() / BOX)
    raw = scenes.run(task, RESET_THEN_SET)
    repaired = scenes.run(task, delivered)
    cell = 'bpy.data.objects["Box"].location'
    assert raw.state["cells"][cell] == [0.0, 2.0, 0.5]  # the goal, as written
    assert repaired.state["cells"][cell] == [0.0, 0.0, 0.5]  # back at the start
    # With the refiner off the same program is delivered as written.
    off = loop(scenes, n=1).run(context(BOX, per_round([[edit(RESET_THEN_SET)]], 1)))
    assert off.artifact.text == RESET_THEN_SET
