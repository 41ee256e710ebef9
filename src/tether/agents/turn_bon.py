"""Turn-level best-of-N: N candidate replies per turn, a listwise selector picks one.

Only the picked candidate reaches the environment; the others are parsed (so the
record says which could have run) and kept in the turn's record, never executed.
With n = 1 this is exactly the baseline `SamplePolicy` (no selector call).
"""

from __future__ import annotations

from typing import Any

from tether.agents.actions import elide
from tether.agents.loop import (
    GENERATOR_ROLE,
    AgentConfig,
    Decision,
    Turn,
    sample_candidates,
)
from tether.agents.selector import DEFAULT_RETRIES, SCHEMA_TEXT, select
from tether.agents.templates import SELECTOR_SYSTEM, SELECTOR_USER, render
from tether.context import TrialContext
from tether.errors import ConfigError
from tether.models.base import Message

SELECTOR_ROLE = "selector"


def transcript_rows(turns: list[Turn], chars: int) -> list[dict[str, Any]]:
    """The attempt so far as the selector reads it: each command and its (short) result."""
    rows = []
    for t in turns:
        if t.not_run is not None:
            rows.append({"command": "(a command that never ran)", "observation": t.not_run})
            continue
        if t.command is None:
            rows.append({"command": "(a reply without a runnable command)",
                         "observation": f"format error: {t.format_error}"})
            continue
        shown, _ = elide(t.output, chars)
        status = " (timed out)" if t.timed_out else ""
        rows.append({"command": f"$ {t.command}",
                     "observation": f"[exit {t.returncode}{status}]\n{shown}"})
    return rows


class TurnBoNPolicy:
    """Sample n candidates per turn; let the selector choose the one to execute."""

    def __init__(self, config: AgentConfig, n: int, *, role: str = GENERATOR_ROLE,
                 selector_role: str = SELECTOR_ROLE, selector_max_tokens: int = 512,
                 selector_temperature: float = 0.0, selector_retries: int = DEFAULT_RETRIES,
                 transcript_chars: int = 1_500, selector_system: str = SELECTOR_SYSTEM,
                 selector_user: str = SELECTOR_USER) -> None:
        if n < 1:
            raise ConfigError(f"turn_bon: n must be at least 1, got {n}")
        self.config = config
        self.n = n
        self.role = role
        self.selector_role = selector_role
        self.selector_max_tokens = selector_max_tokens
        self.selector_temperature = selector_temperature
        self.selector_retries = selector_retries
        self.transcript_chars = transcript_chars
        self.selector_system = selector_system
        self.selector_user = selector_user

    def decide(self, ctx: TrialContext, messages: list[Message], turns: list[Turn]) -> Decision:
        candidates = sample_candidates(ctx, messages, self.n, self.config, self.role)
        if self.n == 1:
            return Decision(candidates, selector_skipped="n=1")
        if not any(c.command is not None for c in candidates):
            # Every choice is a format error: a selector call could not change the turn.
            return Decision(candidates, selector_skipped="no candidate can run")
        system = render(self.selector_system, n=self.n, schema=SCHEMA_TEXT)
        user = render(self.selector_user, task=ctx.task.prompt, candidates=candidates,
                      transcript=transcript_rows(turns, self.transcript_chars))
        selection = select(ctx, system, user, self.n, role=self.selector_role,
                           max_tokens=self.selector_max_tokens,
                           temperature=self.selector_temperature,
                           retries=self.selector_retries)
        return Decision(candidates, selection.index, selection)
