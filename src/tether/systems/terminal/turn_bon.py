"""Turn-level best-of-N: N candidate replies per turn, a listwise selector picks one.

Only the picked candidate reaches the environment; the others are parsed (so the
record says which could have run) and kept in the turn's record, never executed.
With n = 1 this is exactly the baseline `SamplePolicy` (no selector call).

What the selector sees (the paper's appendix on the selector prompt): the task and the
full conversation so far, i.e. per turn the reply the agent executed (its text and tool
call, private reasoning removed) and what came of it as the agent saw it (the
observation, at the agent's own `observation_limit`), then the N candidates without
their private reasoning. Nothing is cut by default.

Truncation, only when a context limit forces it: `selector_context_chars` (a cap on
the transcript's characters, for a selector whose context is known to be smaller than
the generator's), or the selector's call failing with a context-length error, which
retries with the transcript at half the size, twice at most. Fitting a transcript to a
size keeps the first and the latest turns whole and replaces the oldest of the others,
one by one, with a marker that says how many turns were left out; the candidates are
never cut. A selection that still does not fit is a failed selection (option 0).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from tether import params
from tether.context import TrialContext
from tether.models import Message
from tether.strategies import (
    DEFAULT_RETRIES,
    SCHEMA_TEXT,
    Selection,
    StrategyResult,
    register_strategy,
    select,
    thinking_tokens,
)
from tether.systems.terminal.agent.actions import elide
from tether.systems.terminal.agent.loop import (
    GENERATOR_ROLE,
    Decision,
    Turn,
    sample_candidates,
)
from tether.systems.terminal.agent.params import AgentParams
from tether.systems.terminal.agent.strategy import run_one, terminal_environment
from tether.systems.terminal.agent.templates import SELECTOR_SYSTEM, SELECTOR_USER, render

SELECTOR_ROLE = "selector"
#: how many times a selector call that overflowed its context is retried, smaller
CONTEXT_RETRIES = 2


def transcript_rows(turns: list[Turn], chars: int) -> list[dict[str, Any]]:
    """The attempt so far, per turn: the executed reply as the agent wrote it (`reply`),
    its command (`command`) and what came of it (`observation`, output cut to `chars`)."""
    rows = []
    for t in turns:
        reply = t.decision.chosen.shown
        if t.cut_off:
            rows.append({"reply": reply, "command": "(a reply cut off at the output limit)",
                         "observation": "not run: cut off at the output limit"})
            continue
        if t.not_run is not None:
            rows.append({"reply": reply, "command": "(a command that never ran)",
                         "observation": t.not_run})
            continue
        if t.command is None:
            rows.append({"reply": reply, "command": "(a reply without a runnable command)",
                         "observation": f"format error: {t.format_error}"})
            continue
        shown, _ = elide(t.output, chars)
        status = " (timed out)" if t.timed_out else ""
        rows.append({"reply": reply, "command": f"$ {t.command}",
                     "observation": f"[exit {t.returncode}{status}]\n{shown}"})
    return rows


def _size(row: dict[str, Any]) -> int:
    return sum(len(str(v)) for v in row.values())


def fit_rows(rows: list[dict[str, Any]], chars: int) -> list[dict[str, Any]]:
    """`rows` within about `chars` characters: the first and the latest turns kept whole,
    the oldest of the others replaced by one marker row (see the module docstring)."""
    if sum(_size(r) for r in rows) <= chars or len(rows) <= 2:
        return rows
    first, rest = rows[0], rows[1:]
    used = _size(first)
    kept: list[dict[str, Any]] = []
    for row in reversed(rest):  # the latest turns matter most for the next step
        if used + _size(row) > chars and kept:
            break
        kept.insert(0, row)
        used += _size(row)
    left_out = len(rest) - len(kept)
    if not left_out:
        return rows
    marker = {"reply": "", "command": f"[... {left_out} earlier turns left out to fit the "
                                      "selector's context ...]", "observation": ""}
    return [first, marker, *kept]


class TurnBoNParams(AgentParams):
    """The agent's params, `n` and the selector's."""

    n: params.Count = Field(4, description="candidates per turn (1: no selector call)")
    selector_max_tokens: params.Tokens = Field(512, description="most tokens of a selector "
                                                                "reply")
    selector_temperature: params.Temperature = Field(0.0, description="the selector's "
                                                                      "temperature")
    selector_retries: params.CountFromZero = Field(
        DEFAULT_RETRIES, description="an unusable selector reply is sent back this many "
                                     "times")
    selector_context_chars: params.Count | None = Field(
        None, description="cap on the transcript the selector reads (none: all)")
    selector_thinking_budget: params.CountFromZero | None = Field(
        None, description="the selector's thinking tokens")
    selector_reasoning_effort: Literal["low", "medium", "high", "max"] | None = Field(
        None, description="the selector's thinking, as an effort (max: the level above "
                          "high some providers have)")
    selector_system: str = Field(SELECTOR_SYSTEM, description="the selector's system prompt "
                                                              "(a template)")
    selector_user: str = Field(SELECTOR_USER, description="the selector's message "
                                                          "(a template)")

    def roles(self) -> tuple[str, ...]:
        return (GENERATOR_ROLE,) if self.n == 1 else (GENERATOR_ROLE, SELECTOR_ROLE)


class TurnBoNPolicy:
    """Sample n candidates per turn; let the selector choose the one to execute."""

    def __init__(self, params: TurnBoNParams, *, role: str = GENERATOR_ROLE,
                 selector_role: str = SELECTOR_ROLE) -> None:
        self.params = params
        self.role = role
        self.selector_role = selector_role
        self.selector_thinking_budget = thinking_tokens(params.selector_thinking_budget,
                                                        params.selector_reasoning_effort)

    def decide(self, ctx: TrialContext, messages: list[Message], turns: list[Turn]) -> Decision:
        p = self.params
        candidates = sample_candidates(ctx, messages, p.n, p, self.role)
        if p.n == 1:
            return Decision(candidates, selector_skipped="n=1")
        if not any(c.command is not None for c in candidates):
            # Every choice is a format error: a selector call could not change the turn.
            return Decision(candidates, selector_skipped="no candidate can run")
        system = render(p.selector_system, n=p.n, schema=SCHEMA_TEXT)
        rows = transcript_rows(turns, p.observation_limit)
        if p.selector_context_chars is not None:
            rows = fit_rows(rows, p.selector_context_chars)
        selection = self._select(ctx, system, candidates, rows)
        for _ in range(CONTEXT_RETRIES):
            if not (selection.failed and selection.errors
                    and selection.errors[-1].startswith("context length exceeded")):
                break
            smaller = fit_rows(rows, sum(_size(r) for r in rows) // 2)
            if smaller == rows:
                break  # nothing left to cut: the candidates alone do not fit
            rows = smaller
            retry = self._select(ctx, system, candidates, rows)
            retry.errors[:0] = selection.errors
            retry.replies[:0] = selection.replies
            retry.output_tokens += selection.output_tokens
            selection = retry
        return Decision(candidates, selection.index, selection)

    def _select(self, ctx: TrialContext, system: str, candidates: list[Any],
                rows: list[dict[str, Any]]) -> Selection:
        p = self.params
        user = render(p.selector_user, task=ctx.task.prompt, candidates=candidates,
                      transcript=rows)
        return select(ctx, system, user, p.n, role=self.selector_role,
                      max_tokens=p.selector_max_tokens, temperature=p.selector_temperature,
                      retries=p.selector_retries,
                      thinking_budget=self.selector_thinking_budget)


@register_strategy("turn_bon")
class TurnBoN:
    """The bash agent with turn-level best-of-N: each turn a selector picks one of `n`
    sampled commands to run.

    Its params (`TurnBoNParams` above) are the agent's and the selector's.
    """

    name: ClassVar[str] = "turn_bon"
    Params = TurnBoNParams
    #: opens each attempt's environment (tests swap in a scripted double)
    environment_factory = staticmethod(terminal_environment)

    def __init__(self, params: TurnBoNParams | None = None) -> None:
        self.params = params if params is not None else self.Params()
        self.policy = TurnBoNPolicy(self.params)

    @property
    def roles(self) -> tuple[str, ...]:
        """The policy's generator, and its selector unless n = 1 (no selector call)."""
        return self.params.roles()

    def run(self, ctx: TrialContext) -> StrategyResult:
        return run_one(ctx, self.policy, self.params, self.environment_factory,
                       {"n": self.params.n})
