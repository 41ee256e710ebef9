"""The host loop: the paper's Algorithm 2 (Appendix D) over a Refiner.

z0 is the start program observed without a render, its render the task's start image r0
(session.py): the generator is shown r0 and the goal. Per interaction j = 1..T: sample
N candidate replies from the generator's window; parse them (actions.py) and take the
most frequent valid action type; only candidates of that type go on. `edit` candidates
are executed and refined, all against the same previous delivered record z-; a
tournament of k - 1 judge comparisons picks one delivered outcome, which alone advances
z-. The visual verifier (context reset each round) compares the delivered render with the
goal when the selected reply asks for it (`ACTION: edit verify`: line 23 of Algorithm 2,
"when requested by the selected tool"), or after every delivered edit with
`verify = "every_edit"` (VIGA's runner, whose execute tool always evaluates). The render,
any execution error and the verifier's words go back to the generator. `plan` pins
the plan in the window, `inspect` answers with the current record's captured state:
both use up an interaction and never reach the refiner. `end` stops. No valid
candidate: the parse errors go back and the interaction is used up.

The refiner's evidence (traces, displaced writes) stays internal unless `show_trace`
(an ablation) adds the raw program's observed writes to the feedback.

The answer is the last selected outcome that holds a generated render (never the start
program). No such render, or a timeout, makes the trial invalid: reported, not scored.
The interaction cap and an exhausted token budget end the loop normally.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

from tether.context import TrialContext
from tether.core import Artifact, BudgetExhausted
from tether.strategies import StrategyResult
from tether.systems.scene.instrument import shared_scenes
from tether.systems.scene.loop.actions import REPLY_FORMAT, Action, parse_reply, vote
from tether.systems.scene.loop.facts import SceneFacts
from tether.systems.scene.loop.judges import JUDGE_ROLE, VERIFIER_ROLE, Verifier, tournament
from tether.systems.scene.loop.messages import (
    Window,
    content,
    resolve_modality,
    state_summary,
    trace_summary,
)
from tether.systems.scene.loop.params import HostParams
from tether.systems.scene.loop.session import Outcome, SceneSession
from tether.systems.scene.record import Refiner, SceneRecord
from tether.systems.scene.scenes import TaskScenes

GENERATOR_ROLE = "generator"
GENERATOR_SYSTEM = ("You edit Blender Python (bpy 4.2) scene programs so that the scene's "
                    "render matches a goal image. Your programs run afresh on the task's base "
                    "scene, which already holds the objects; keep what the edit does not "
                    "concern.\n" + REPLY_FORMAT)


def png_artifact(ctx: TrialContext, png: bytes) -> str:
    """Keep a render in the trial's record (kind png_b64); returns its digest."""
    artifact = Artifact(kind="png_b64", text=base64.b64encode(png).decode("ascii"))
    ctx.keep(artifact)
    return artifact.digest


@dataclass
class LoopState:
    previous: SceneRecord
    previous_generated: bool = False
    answer: SceneRecord | None = None
    chain: str = ""  # persistent scene: the delivered programs so far
    facts: dict[str, Any] = field(default_factory=dict)


class HostLoop:
    """Algorithm 2 with `params` (`HostParams`: width, limits, the ablations' switches)."""

    def __init__(self, params: HostParams, refiner: Refiner, *, name: str = "vetr",
                 scenes: TaskScenes | None = None) -> None:
        self.params, self.refiner, self.name, self._scenes = params, refiner, name, scenes

    def run(self, ctx: TrialContext) -> StrategyResult:
        p = self.params
        session = SceneSession(ctx.task, self._scenes or shared_scenes(), size=p.size,
                               samples=p.samples, persistent=p.persistent)
        modality = {role: resolve_modality(ctx, role, p.modality)
                    for role in (GENERATOR_ROLE, VERIFIER_ROLE, JUDGE_ROLE)}
        facts = SceneFacts(scene_strategy=self.name, family=session.task.family,
                           modality=modality, settings=_settings(p))
        calls = {GENERATOR_ROLE: 0, VERIFIER_ROLE: 0, JUDGE_ROLE: 0}
        verifier = Verifier(modality[VERIFIER_ROLE], memory=p.verifier_memory)
        window = Window(pinned=[
            {"role": "system", "content": GENERATOR_SYSTEM},
            {"role": "user", "content": content([
                ("text", f"The edit: {session.task.description}"),
                ("goal image", session.goal_png),
                ("start image", session.start_png),
                ("text", f"The start program:\n```python\n{session.task.start}```"),
            ], modality[GENERATOR_ROLE])},
        ], limit=p.history)
        state = LoopState(previous=session.initial)
        stop = "cap"
        for j in range(1, p.max_interactions + 1):
            if session.elapsed() > p.timeout_s:
                stop = "timeout"
                break
            try:
                done = self._interaction(ctx, j, session, window, state, facts, calls,
                                         verifier, modality)
            except BudgetExhausted:
                stop = "budget"
                break
            facts.interactions = j
            if done:
                stop = "end"
                break
        if stop != "timeout" and session.elapsed() > p.timeout_s:
            stop = "timeout"
        return finish(ctx, session, state, facts, calls, stop)

    def _interaction(self, ctx: TrialContext, j: int, session: SceneSession, window: Window,
                     state: LoopState, facts: SceneFacts, calls: dict[str, int],
                     verifier: Verifier, modality: dict[str, str]) -> bool:
        p = self.params
        replies = ctx.generate(GENERATOR_ROLE, window.messages(), n=p.n,
                               max_tokens=p.max_tokens, temperature=p.sampling_temperature)
        calls[GENERATOR_ROLE] += len(replies)
        actions = [parse_reply(r.text, r.finish_reason) for r in replies]
        chosen = vote(actions)
        row: dict[str, Any] = {"interaction": j, "actions": [a.kind for a in actions],
                               "errors": [a.error for a in actions if a.error],
                               "chosen": chosen}
        facts.rounds.append(row)
        facts.invalid_replies += sum(not a.valid for a in actions)
        if chosen is None:
            window.add("assistant", actions[0].reply)
            window.add("user", "No valid action could be read from your reply ("
                       + "; ".join(sorted({a.error or "" for a in actions})) + ").\n"
                       + REPLY_FORMAT)
            return False
        picked = [a for a in actions if a.kind == chosen]
        if chosen == "end":
            window.add("assistant", picked[0].reply)
            return True
        if chosen == "plan":
            window.add("assistant", picked[0].reply)
            window.plan = picked[0].text
            window.add("user", "Plan noted (pinned). Continue with your next action.")
            return False
        if chosen == "inspect":
            window.add("assistant", picked[0].reply)
            window.add("user", "Current scene state (the delivered program's captured cells):\n"
                       + state_summary(state.previous.execution.state))
            return False
        self._edit(ctx, j, session, window, state, facts, calls, verifier, modality, picked, row)
        return False

    def _edit(self, ctx: TrialContext, j: int, session: SceneSession, window: Window,
              state: LoopState, facts: SceneFacts, calls: dict[str, int], verifier: Verifier,
              modality: dict[str, str], picked: list[Action], row: dict[str, Any]) -> None:
        outcomes: list[Outcome] = []
        for i, action in enumerate(picked):
            assert action.program is not None
            outcome = session.submit(action.program, self.refiner, state.previous,
                                     state.previous_generated, state.chain)
            outcomes.append(outcome)
            raw = outcome.refinement.raw.execution
            facts.submissions.append({
                "interaction": j, "candidate": i, "accepted": outcome.refinement.accepted,
                "executions": outcome.executions, "raw_ok": raw.ok,
                "raw_rendered": outcome.refinement.raw.rendered,
                "error": (raw.error or {}).get("kind"), "generated": outcome.generated,
                "selected": False,
            })
        first = len(facts.submissions) - len(outcomes)
        rendered = [i for i, o in enumerate(outcomes) if o.rendered]
        winner: int | None = None
        if rendered:
            # rendered indexes only outcomes whose delivered record has a render
            result = tournament(ctx, [outcomes[i].delivered.execution.render_png  # type: ignore[union-attr,misc]
                                      for i in rendered], session.goal_png,
                                session.task.description, modality=modality[JUDGE_ROLE])
            calls[JUDGE_ROLE] += result.calls
            row["tournament"] = result.rounds
            winner = rendered[result.winner]
        selected_action = picked[winner if winner is not None else 0]
        window.add("assistant", selected_action.reply)
        feedback: list[tuple[str, Any]] = []
        if len(outcomes) > 1:
            feedback.append(("text", f"{len(rendered)} of {len(outcomes)} candidates delivered "
                                     f"a render; candidate {winner} was selected."))
        shown = outcomes[winner if winner is not None else 0]
        record = shown.refinement.raw
        if not record.execution.ok or not record.rendered:
            error = record.execution.error or {}
            line = session.error_line(selected_action.program or "", state.chain, error.get("line"))
            feedback.append(("text", f"Your program failed ({error.get('kind')}"
                                     f"{'' if line is None else f' at line {line}'}): "
                                     f"{str(error.get('message', ''))[:600]}"))
        if self.params.show_trace:
            feedback.append(("text", "Observed writes of your program:\n"
                                     + trace_summary(record.execution.events)))
        if winner is not None:
            selected = outcomes[winner]
            facts.submissions[first + winner]["selected"] = True
            delivered = selected.delivered
            assert delivered is not None
            state.previous, state.previous_generated = delivered, selected.generated
            if selected.generated:
                state.answer, facts.answer_interaction = delivered, j
                if self.params.persistent:
                    state.chain = delivered.program
            png = delivered.execution.render_png
            note = ("The delivered scene's render" if selected.generated
                    else "The scene is unchanged; its render")
            feedback.append((note, png))
            asked = self.params.verify == "every_edit" or selected_action.verify
            row["verify_requested"] = selected_action.verify
            if self.params.verifier and asked and png is not None:
                shared = window.messages()[1:] if self.params.shared_memory else None
                said = verifier.check(ctx, png, session.goal_png, session.task.description,
                                      shared=shared)
                calls[VERIFIER_ROLE] += 1
                feedback.append(("text", f"Verifier: {said}"))
        else:
            feedback.append(("text", "Nothing was delivered: the scene stays as it was."))
        row["selected"] = winner
        window.add("user", content(feedback, modality[GENERATOR_ROLE]))


def _settings(params: HostParams) -> dict[str, Any]:
    """The loop's settings as the trial records them (a strategy's own params, such as
    vetr's refiner, are recorded with the trial's spec), and the projection scope of the
    refiner the loop runs (None without one), which the report shows per arm."""
    found = {k: getattr(params, k) for k in HostParams.model_fields}
    refines = getattr(params, "refiner", "off") != "off"
    found["projection_scope"] = getattr(params, "projection_scope", None) if refines else None
    return found


def finish(ctx: TrialContext, session: SceneSession, state: LoopState, facts: SceneFacts,
            calls: dict[str, int], stop: str) -> StrategyResult:
    facts.stop_reason = stop
    facts.level = session.task.level
    facts.calls = calls
    facts.executions = session.executor.executions
    facts.renders = session.executor.renders
    facts.wall_s = round(session.elapsed(), 3)
    kept: dict[str, bytes | None] = {"start": session.start_png, "goal": session.goal_png}
    if state.answer is not None:
        kept["delivered"] = state.answer.execution.render_png
    facts.renders_kept = {k: png_artifact(ctx, v) for k, v in kept.items() if v}
    if stop == "timeout":
        facts.invalid_reason = "timeout"
    elif state.answer is None:
        facts.invalid_reason = "no_render"
    facts.valid = facts.invalid_reason is None
    artifact = (Artifact(kind="scene", text=state.answer.program)
                if facts.valid and state.answer is not None else None)
    status = "timeout" if stop == "timeout" else "ok"
    return StrategyResult(artifact=artifact, status=status, facts=facts)
