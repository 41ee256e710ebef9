"""The paper's baselines besides VIGA: `scene_one_shot` and `blender_alchemy`.

`scene_one_shot`: one generator call from the start program and the visual target (the
goal image when the generator is a VLM), its program executed once afresh from the base;
no feedback. Valid when it rendered.

`blender_alchemy`: edit search, depth 2 x breadth 2 (the paper's Qwen configuration:
one try): at each depth the generator proposes `breadth` edits of the current program,
each is executed afresh (no refiner: BlenderAlchemy sees only renders), and a VLM judge
picks, by k - 1 pairwise comparisons, among the current program and the rendered edits;
the pick is the next depth's current program. Valid when a generated program was picked.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from tether import params
from tether.context import TrialContext
from tether.core import BudgetExhausted
from tether.strategies import StrategyResult, register_strategy
from tether.systems.scene.instrument import shared_scenes
from tether.systems.scene.loop.actions import parse_reply
from tether.systems.scene.loop.facts import SceneFacts
from tether.systems.scene.loop.host import GENERATOR_ROLE, LoopState, finish
from tether.systems.scene.loop.judges import JUDGE_ROLE, tournament
from tether.systems.scene.loop.messages import content, resolve_modality
from tether.systems.scene.loop.params import SceneParams
from tether.systems.scene.loop.session import SceneSession
from tether.systems.scene.record import SceneRecord
from tether.systems.scene.scenes import TaskScenes

EDIT_SYSTEM = ("You edit Blender Python (bpy 4.2) scene programs so that the scene's render "
               "matches a goal image. Your program runs afresh on the task's base scene, "
               "which already holds the objects. Reply with the COMPLETE edited program in "
               "one ```python fenced block.")


def _session(ctx: TrialContext, scenes: TaskScenes | None, p: SceneParams) -> SceneSession:
    return SceneSession(ctx.task, scenes or shared_scenes(), size=p.size, samples=p.samples,
                        persistent=False)


def _ask(session: SceneSession, program: str, render: bytes | None, modality: str,
         current: str) -> list[dict]:
    return [{"role": "system", "content": EDIT_SYSTEM},
            {"role": "user", "content": content([
                ("text", f"The edit: {session.task.description}"),
                ("goal image", session.goal_png), (f"{current} render", render),
                ("text", f"The {current} program:\n```python\n{program}```"),
            ], modality)}]


@register_strategy("scene_one_shot")
class SceneOneShot:
    name: ClassVar[str] = "scene_one_shot"
    roles: ClassVar[tuple[str, ...]] = (GENERATOR_ROLE,)

    class Params(SceneParams):
        temperature: params.Temperature = Field(0.0, description="the generator's "
                                                                 "temperature")

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()
        self.scenes: TaskScenes | None = None

    def run(self, ctx: TrialContext) -> StrategyResult:
        p = self.params
        session = _session(ctx, self.scenes, p)
        modality = resolve_modality(ctx, GENERATOR_ROLE, p.modality)
        facts = SceneFacts(scene_strategy=self.name, family=session.task.family,
                           modality={GENERATOR_ROLE: modality},
                           settings={"max_tokens": p.max_tokens,
                                     "temperature": p.temperature})
        state = LoopState(previous=session.initial)
        calls = {GENERATOR_ROLE: 0}
        stop = "delivered"
        try:
            reply = ctx.generate(GENERATOR_ROLE, _ask(session, session.task.start,
                                                      session.initial.execution.render_png,
                                                      modality, "start"),
                                 max_tokens=p.max_tokens, temperature=p.temperature)[0]
        except BudgetExhausted:
            return finish(ctx, session, state, facts, calls, "budget")
        calls[GENERATOR_ROLE] = 1
        facts.interactions = 1
        action = parse_reply(reply.text, reply.finish_reason)
        facts.rounds.append({"interaction": 1, "actions": [action.kind],
                             "errors": [action.error] if action.error else [],
                             "chosen": action.kind})
        if action.kind == "edit" and action.program is not None:
            record = SceneRecord(action.program, session.execute(action.program))
            facts.submissions.append({
                "interaction": 1, "candidate": 0, "accepted": "raw" if record.rendered else "none",
                "executions": 1, "raw_ok": record.execution.ok, "raw_rendered": record.rendered,
                "error": (record.execution.error or {}).get("kind"),
                "generated": record.rendered, "selected": True})
            if record.rendered:
                state.answer, facts.answer_interaction = record, 1
        else:
            facts.invalid_replies = 1
        return finish(ctx, session, state, facts, calls, stop)


@register_strategy("blender_alchemy")
class BlenderAlchemy:
    name: ClassVar[str] = "blender_alchemy"
    roles: ClassVar[tuple[str, ...]] = (GENERATOR_ROLE, JUDGE_ROLE)

    class Params(SceneParams):
        depth: params.Count = Field(2, description="rounds of edits, each judged")
        breadth: params.Count = Field(2, description="edits per round")
        temperature: params.Temperature = Field(0.7, description="the generator's "
                                                                 "temperature")

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()
        self.scenes: TaskScenes | None = None

    def run(self, ctx: TrialContext) -> StrategyResult:
        p = self.params
        session = _session(ctx, self.scenes, p)
        modality = {r: resolve_modality(ctx, r, p.modality)
                    for r in (GENERATOR_ROLE, JUDGE_ROLE)}
        facts = SceneFacts(scene_strategy=self.name, family=session.task.family,
                           modality=modality,
                           settings={"depth": p.depth, "breadth": p.breadth,
                                     "max_tokens": p.max_tokens,
                                     "temperature": p.temperature})
        state = LoopState(previous=session.initial)
        calls = {GENERATOR_ROLE: 0, JUDGE_ROLE: 0}
        stop = "cap"
        try:
            for d in range(1, p.depth + 1):
                self._depth(ctx, d, session, state, facts, calls, modality)
                facts.interactions = d
        except BudgetExhausted:
            stop = "budget"
        return finish(ctx, session, state, facts, calls, stop)

    def _depth(self, ctx: TrialContext, d: int, session: SceneSession, state: LoopState,
               facts: SceneFacts, calls: dict[str, int], modality: dict[str, str]) -> None:
        current = state.previous
        replies = ctx.generate(GENERATOR_ROLE, _ask(session, current.program,
                                                    current.execution.render_png,
                                                    modality[GENERATOR_ROLE], "current"),
                               n=self.params.breadth, max_tokens=self.params.max_tokens,
                               temperature=self.params.temperature)
        calls[GENERATOR_ROLE] += len(replies)
        actions = [parse_reply(r.text, r.finish_reason) for r in replies]
        facts.rounds.append({"interaction": d, "actions": [a.kind for a in actions],
                             "errors": [a.error for a in actions if a.error], "chosen": "edit"})
        pool: list[tuple[SceneRecord, bool, int | None]] = [(current, state.previous_generated,
                                                             None)]
        for i, action in enumerate(actions):
            if action.kind != "edit" or action.program is None:
                facts.invalid_replies += 1
                continue
            record = SceneRecord(action.program, session.execute(action.program))
            facts.submissions.append({
                "interaction": d, "candidate": i, "accepted": "raw" if record.rendered else "none",
                "executions": 1, "raw_ok": record.execution.ok, "raw_rendered": record.rendered,
                "error": (record.execution.error or {}).get("kind"),
                "generated": record.rendered, "selected": False})
            if record.rendered:
                pool.append((record, True, len(facts.submissions) - 1))
        # the pool holds only rendered records, whose render_png is set
        result = tournament(ctx, [r.execution.render_png for r, _, _ in pool],  # type: ignore[misc]
                            session.goal_png, session.task.description,
                            modality=modality[JUDGE_ROLE])
        calls[JUDGE_ROLE] += result.calls
        record, generated, index = pool[result.winner]
        facts.rounds[-1]["tournament"] = result.rounds
        facts.rounds[-1]["selected"] = result.winner
        state.previous, state.previous_generated = record, generated
        if index is not None:  # a new edit won; else the current program stays the answer
            facts.submissions[index]["selected"] = True
            state.answer, facts.answer_interaction = record, d
