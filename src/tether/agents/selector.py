"""Listwise selection: a model reads N options at once and names the index of one.

The reply must hold a JSON object `{"rationale": str, "selected_index": int}`; the
first JSON object in the reply is the answer. An unusable answer is sent back with
its parse error, up to `retries` times; after that the choice falls back to option 0
and the selection is flagged failed. Option 0 of i.i.d. samples is an unbiased draw,
i.e. exactly what the policy without a selector would have done, so a failed
selector costs tokens but never biases the comparison.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tether.agents.templates import SELECTOR_RETRY, render
from tether.context import TrialContext
from tether.models.base import Message
from tether.models.errors import ContextLengthExceeded
from tether.models.replies import NoJSONError, first_json, strip_private_reasoning

SELECTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "rationale": {"type": "string"},
        "selected_index": {"type": "integer"},
    },
    "required": ["rationale", "selected_index"],
}
SCHEMA_TEXT = json.dumps(SELECTION_SCHEMA)
DEFAULT_RETRIES = 3


class SelectionParseError(ValueError):
    """The reply holds no usable choice; the message is what the selector is told."""


@dataclass
class Selection:
    """What the selector chose, and everything it said on the way."""

    index: int
    rationale: str | None = None
    failed: bool = False
    replies: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    output_tokens: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "rationale": self.rationale, "failed": self.failed,
                "replies": list(self.replies), "errors": list(self.errors),
                "output_tokens": self.output_tokens}


def first_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in `text` (prose and code fences around it are ignored)."""
    try:
        return first_json(text, kind="object")
    except NoJSONError as exc:
        raise SelectionParseError(str(exc)) from None


def parse_selection(text: str, n: int) -> tuple[int, str | None]:
    """(selected_index, rationale) from a selector reply over `n` options."""
    obj = first_json_object(strip_private_reasoning(text))
    index = obj.get("selected_index")
    if isinstance(index, bool) or not isinstance(index, int):
        raise SelectionParseError(
            f"selected_index must be an integer, got {json.dumps(index)}")
    if not 0 <= index < n:
        raise SelectionParseError(f"selected_index {index} is out of range 0..{n - 1}")
    rationale = obj.get("rationale")
    return index, rationale if isinstance(rationale, str) else None


def select(ctx: TrialContext, system: str, user: str, n: int, *, role: str = "selector",
           max_tokens: int = 512, temperature: float = 0.0,
           retries: int = DEFAULT_RETRIES) -> Selection:
    """Ask the `role` model to pick one of `n` options described in `user`.

    BudgetExhausted propagates (the caller's attempt ends); a selector whose prompt no
    longer fits its context counts as a failed selection, not as the agent's failure.
    """
    messages: list[Message] = [{"role": "system", "content": system},
                               {"role": "user", "content": user}]
    selection = Selection(index=0)
    for _ in range(retries + 1):
        try:
            (reply,) = ctx.generate(role, messages, max_tokens=max_tokens,
                                    temperature=temperature)
        except ContextLengthExceeded as exc:
            selection.errors.append(f"context length exceeded: {exc}")
            break
        selection.replies.append(reply.text)
        selection.output_tokens += reply.usage.output_tokens + reply.usage.reasoning_tokens
        try:
            selection.index, selection.rationale = parse_selection(reply.text, n)
            return selection
        except SelectionParseError as exc:
            error = str(exc)
            if reply.finish_reason == "length":
                error += " (the answer was cut off: keep the rationale short)"
            selection.errors.append(error)
        messages = [*messages, {"role": "assistant", "content": reply.text},
                    {"role": "user", "content": render(SELECTOR_RETRY, error=error, n=n)}]
    selection.index, selection.failed = 0, True
    return selection
