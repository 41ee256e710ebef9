"""`trajectory_bon`: N independent baseline attempts, one delivered.

`pick = "selector"`: a listwise selector (role "selector") reads every attempt's
commands and results and names the one most likely to have solved the task.
`pick = "oracle"`: each attempt is verified (purpose "selection") and the first one
whose ending is `pass` is delivered (it submitted and the verifier passes it: an
attempt the harness stopped cannot pass, whatever its final state), else attempt 0:
an upper bound that a deployed system cannot reach, reported as such. Every attempt
keeps its own environment until the choice is made, so the delivered one is verified
over its own final /app.

The delivered attempt is the trial's attempt: its turns are the trial's `turn_records`
(what the report counts and labels, what `tether judge` reads and `tether export` takes
the trajectory from), its exit reason and counts are the trial's. `attempts` keeps every
attempt's summary beside it, in order; each names the slice of the trial's calls it made
(`calls`: [first, end)) and the delivered one says `delivered` (its turn records are the
trial's, not repeated there).
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any, ClassVar, Literal

from pydantic import Field

from tether import params
from tether.context import TrialContext
from tether.core import AgentEndState, Artifact, BudgetExhausted
from tether.strategies import (
    DEFAULT_RETRIES,
    SCHEMA_TEXT,
    Selection,
    StrategyResult,
    register_strategy,
    select,
)
from tether.systems.terminal.agent.loop import (
    GENERATOR_ROLE,
    AttemptResult,
    Environment,
    SamplePolicy,
    run_attempt,
)
from tether.systems.terminal.agent.params import AgentParams
from tether.systems.terminal.agent.strategy import (
    attempt_artifact,
    attempt_summary,
    deliver,
    end_state,
    environment_record,
    terminal_environment,
    verify,
    watch_app,
)
from tether.systems.terminal.agent.templates import (
    TRAJECTORY_SELECTOR_SYSTEM,
    TRAJECTORY_SELECTOR_USER,
    render,
)
from tether.systems.terminal.turn_bon import SELECTOR_ROLE, transcript_rows


class TrajectoryParams(AgentParams):
    """The agent's params, the attempts' and the selector's."""

    n: params.Count = Field(4, description="attempts")
    pick: Literal["selector", "oracle"] = Field(
        "selector", description="who picks the delivered attempt: a selector call or the "
                                "task's metric")
    selector_max_tokens: params.Tokens = Field(512, description="most tokens of the selector "
                                                                "reply")
    selector_temperature: params.Temperature = Field(0.0, description="the selector's "
                                                                      "temperature")
    selector_retries: params.CountFromZero = Field(
        DEFAULT_RETRIES, description="an unusable selector reply is sent back this many "
                                     "times")
    transcript_chars: params.Count = Field(600, description="characters of each attempt's "
                                                            "transcript the selector reads")

    def roles(self) -> tuple[str, ...]:
        if self.pick == "selector" and self.n > 1:
            return (GENERATOR_ROLE, SELECTOR_ROLE)
        return (GENERATOR_ROLE,)


@register_strategy("trajectory_bon")
class TrajectoryBoN:
    """Trajectory-level best-of-N: `n` whole attempts of the bash agent, one delivered
    (picked by a selector call or by the task's metric).

    Its params (`TrajectoryParams` above) are the agent's, the attempts' and the
    selector's.
    """

    name: ClassVar[str] = "trajectory_bon"
    Params = TrajectoryParams
    #: opens each attempt's environment (tests swap in a scripted double)
    environment_factory = staticmethod(terminal_environment)

    def __init__(self, params: TrajectoryParams | None = None) -> None:
        self.params = params if params is not None else self.Params()

    @property
    def roles(self) -> tuple[str, ...]:
        """The attempts' generator, and the selector when one picks among several
        attempts (the oracle picks with the task's metric instrument)."""
        return self.params.roles()

    def run(self, ctx: TrialContext) -> StrategyResult:
        p = self.params
        policy = SamplePolicy(p)
        with ExitStack() as stack:
            attempts: list[tuple[AttemptResult, Artifact]] = []
            changed: list[list[str] | None] = []
            call_ranges: list[list[int]] = []
            opened: list[Environment] = []
            for i in range(p.n):
                env: Environment = stack.enter_context(self.environment_factory(ctx, p))
                changes = watch_app(env)
                first_call = len(ctx.calls)
                attempt = run_attempt(ctx, env, policy, p, attempt=i + 1)
                call_ranges.append([first_call, len(ctx.calls)])
                attempts.append((attempt, attempt_artifact(
                    attempt, env, f"attempt {i + 1} of {p.n} on {ctx.task.key}")))
                changed.append(changes())
                opened.append(env)
                if attempt.exit_reason in ("token_budget", "agent_error"):
                    break  # no budget left for another attempt, or the harness is failing
            index, choice = self._choose(ctx, attempts)
            attempt, artifact = attempts[index]
            metric = verify(ctx, attempt, artifact)
            # read while the environments are open: the proxies' logs are complete now
            environments = [environment_record(e) for e in opened]
        summaries = [{**attempt_summary(a), **e}
                     for (a, _), e in zip(attempts, environments, strict=True)]
        for summary, files, calls in zip(summaries, changed, call_ranges, strict=True):
            summary["calls"] = calls
            if files is not None:
                summary["changed_files"] = files
        delivered = summaries[index]
        kept = [{**{k: v for k, v in s.items() if k != "turn_records"}, "delivered": True}
                if i == index else s for i, s in enumerate(summaries)]
        extra = {"n": p.n, "pick": p.pick, "selected_attempt": index, **choice,
                 **delivered, "attempts": kept}
        return deliver(ctx, attempt, artifact, metric, extra)

    def _choose(self, ctx: TrialContext,
                attempts: list[tuple[AttemptResult, Artifact]]) -> tuple[int, dict[str, Any]]:
        if len(attempts) == 1:
            return 0, {"selection": None}
        if self.params.pick == "oracle":
            passed: list[bool | None] = []
            endings: list[str | None] = []
            for attempt, artifact in attempts:
                if attempt.exit_reason == "agent_error":
                    passed.append(None)
                    endings.append(AgentEndState.AGENT_ERROR.value)
                    continue
                obs = ctx.observe(ctx.task.metric, artifact, purpose="selection")
                passed.append(obs.passed if obs.ok else None)
                endings.append(end_state(attempt, obs if obs.ok else None).value)
            # By the ending first: only an attempt that submitted can pass, so a stopped
            # attempt whose final state the verifier accepts is never the oracle's pick.
            index = next((i for i, e in enumerate(endings) if e == AgentEndState.PASS), 0)
            return index, {"oracle_passed": passed, "oracle_endings": endings}
        selection = self._select(ctx, attempts)
        return selection.index, {"selection": selection.to_json(),
                                 "selector_failed": selection.failed}

    def _select(self, ctx: TrialContext,
                attempts: list[tuple[AttemptResult, Artifact]]) -> Selection:
        rows = [{"exit_reason": a.exit_reason,
                 "transcript": transcript_rows(a.turns, self.params.transcript_chars)}
                for a, _ in attempts]
        system = render(TRAJECTORY_SELECTOR_SYSTEM, n=len(attempts), schema=SCHEMA_TEXT)
        user = render(TRAJECTORY_SELECTOR_USER, task=ctx.task.prompt, attempts=rows)
        try:
            return select(ctx, system, user, len(attempts), role=SELECTOR_ROLE,
                          max_tokens=self.params.selector_max_tokens,
                          temperature=self.params.selector_temperature,
                          retries=self.params.selector_retries)
        except BudgetExhausted:
            # The attempts are done and paid for: deliver attempt 0 (an unbiased draw).
            return Selection(index=0, failed=True, errors=["token budget exhausted"])
