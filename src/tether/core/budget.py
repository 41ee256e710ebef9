"""Budget: a token ledger with named owners, caps enforced before each call.

Who owns what: every call is charged to its role (proposer, reviewer, selector,
...). `total` caps the sum over all roles; `shares` optionally caps a role at a
fraction of `total`. `count` says which tokens are charged: `output` (output +
reasoning, the default, since thinking is generated text) or `input+output`.
Input tokens are only known after a call, so in `input+output` mode a call is
allowed only if a conservative estimate of its prompt (one token per two
characters) leaves room; the estimate is never lower than what tokenizers give
for text, so the cap holds.
"""

from __future__ import annotations

import threading
from typing import Any

from pydantic import BaseModel, Field, field_validator

from tether.models import Message, Usage, estimate_input_tokens

COUNT_MODES = ("output", "input+output")


class BudgetSpec(BaseModel):
    total: int | None = None
    count: str = "output"
    shares: dict[str, float] = Field(default_factory=dict)

    @field_validator("count")
    @classmethod
    def _count(cls, v: str) -> str:
        if v not in COUNT_MODES:
            raise ValueError(f"count must be one of {', '.join(COUNT_MODES)}")
        return v

    @field_validator("total")
    @classmethod
    def _total(cls, v: int | None) -> int | None:
        if v is not None and v < 1:
            raise ValueError("total must be a positive number of tokens")
        return v

    @property
    def label(self) -> str:
        base = "unlimited" if self.total is None else str(self.total)
        if self.count != "output":
            base += f" ({self.count})"
        if not self.shares:
            return base
        # Splits of one total (an allocation experiment) are different budgets in reports.
        return base + " " + ",".join(f"{role}={share:g}" for role, share in self.shares.items())


class BudgetExhausted(Exception):
    """No room for another call: the trial ends with end state `budget_exhausted`."""


class Ledger:
    """Spend per role for one trial. Thread-safe: a strategy may call in parallel."""

    def __init__(self, spec: BudgetSpec) -> None:
        self.spec = spec
        self.spent: dict[str, Usage] = {}
        # a Condition: an all-or-nothing reservation waits on it for in-flight calls
        self._lock = threading.Condition()
        self._reserved = 0
        self.exhausted = False

    def _charged(self, u: Usage) -> int:
        out = u.output_tokens + u.reasoning_tokens
        return out + (u.input_tokens if self.spec.count == "input+output" else 0)

    def charged(self, role: str | None = None) -> int:
        items = self.spent.items() if role is None else [(role, self.spent.get(role, Usage()))]
        return sum(self._charged(u) for _, u in items)

    def room(self, role: str, messages: list[Message] | None = None, n: int = 1,
             tools: list[dict[str, Any]] | None = None) -> int | None:
        """Tokens `role` may still spend (None: no cap), the one rule every planner uses.

        The rest of `total` after what was charged and what in-flight calls reserved,
        capped by the role's share (less what the role was charged) when it has one. In
        `input+output` mode, passing the `messages` (and `tools`) of a planned call of `n`
        samples also takes off the estimate of its prompt, once per sample.
        """
        with self._lock:
            return self._room(role, messages, n, tools)

    def _room(self, role: str, messages: list[Message] | None = None, n: int = 1,
              tools: list[dict[str, Any]] | None = None) -> int | None:
        if self.spec.total is None:
            return None
        room = self.spec.total - self.charged() - self._reserved
        if role in self.spec.shares:
            room = min(room, int(self.spec.total * self.spec.shares[role]) - self.charged(role))
        if messages is not None and self.spec.count == "input+output":
            # the prompt is charged to the role too, so it comes off the share as well
            room -= estimate_input_tokens(messages, tools) * n
        return room

    def reserve(self, role: str, messages: list[Message], max_tokens: int, n: int = 1,
                tools: list[dict[str, Any]] | None = None, *, whole: bool = False) -> int:
        """Return the max_tokens a call of n samples may use, or raise BudgetExhausted.

        `whole`: the call gets all of `max_tokens` or is refused, never cut (a compile's
        student, whose replies are scored: a budget must not truncate some of them). Such
        a call first waits for in-flight calls to settle while they hold the room it
        needs, so it is refused for what was spent, never for what others reserved.
        """
        with self._lock:
            room = self._room(role, messages, n, tools)
            if whole:
                while room is not None and room < max_tokens * n and self._reserved > 0:
                    self._lock.wait()
                    room = self._room(role, messages, n, tools)
            if room is None:
                self._reserved += max_tokens * n
                return max_tokens
            per_sample = min(max_tokens, room // n)
            if whole and per_sample < max_tokens:
                per_sample = 0
            if per_sample < 1:
                self.exhausted = True
                raise BudgetExhausted(f"{role}: no budget left for another call")
            self._reserved += per_sample * n
            return per_sample

    def settle(self, role: str, reserved: int, usage: Usage) -> None:
        with self._lock:
            self._reserved -= reserved
            self.spent[role] = self.spent.get(role, Usage()) + usage
            self._lock.notify_all()

    def remaining(self) -> int | None:
        return None if self.spec.total is None else self.spec.total - self.charged()
