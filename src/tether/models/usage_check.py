"""What a call is charged: the provider's usage when it is possible, else a local count.

A provider's usage is a claim, and the ledger's promise (a budget is never exceeded)
and every cost rest on it. So each sample's claim is checked against what its request
allowed before it is charged or recorded:

- `allowed`: the request's `max_tokens` plus its `thinking_budget`, the most it may
  generate (every backend asks for no more than their sum);
- a claim is impossible when its output (output + reasoning) is over `allowed`, when a
  count is negative, or when the reply carried no usage at all;
- an impossible claim is not charged: the sample is charged a local count instead
  (`local_usage`) and its call record says why (`flag`, with the claim kept beside it).

The local count is a documented estimate, not a tokenizer: 2 characters of text a token
(the ledger's own cautious rule for prompts, `estimate_input_tokens`), for the output
its text, reasoning and tool calls, never more than `allowed`. A flagged call has no
known cost (tether.runs.costs): a price applies to what a provider bills, and what it
bills for such a reply is exactly what cannot be known.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from tether.models.base import Completion, GenerateParams, Message, Usage, text_of

__all__ = ["USAGE_FLAGS", "CheckedUsage", "allowed_output", "check_usage",
           "estimate_input_tokens", "estimate_output_tokens"]

UsageFlag = Literal["missing", "over_limit", "negative"]
#: why a claim was not charged: the reply had no usage, claimed more output than the
#: request allowed, or claimed a negative count
USAGE_FLAGS: tuple[UsageFlag, ...] = ("missing", "over_limit", "negative")


def estimate_input_tokens(messages: list[Message],
                          tools: list[dict[str, Any]] | None = None) -> int:
    """A cautious (high) guess of a request's input tokens: 2 characters a token, plus the
    tool specs offered, which providers count as input too."""
    chars = sum(len(text_of(m)) + len(str(m.get("tool_calls") or "")) for m in messages)
    chars += len(json.dumps(tools)) if tools else 0
    return chars // 2 + 4 * len(messages)


def estimate_output_tokens(c: Completion) -> int:
    """2 characters a token of what the reply holds: its text, reasoning and tool calls."""
    chars = len(c.text) + len(c.reasoning or "")
    chars += sum(len(t.name) + len(t.arguments) for t in c.tool_calls)
    return (chars + 1) // 2


def allowed_output(params: GenerateParams) -> int:
    """The most output (answer + reasoning) one sample of `params` may generate."""
    return params.max_tokens + (params.thinking_budget or 0)


@dataclass(frozen=True)
class CheckedUsage:
    """What one sample is charged, and why not its claim when it was not taken."""

    usage: Usage
    flag: UsageFlag | None = None
    #: the provider's claim when it was not charged (None: taken, or there was none)
    claimed: Usage | None = None


def check_usage(c: Completion, messages: list[Message], params: GenerateParams) -> CheckedUsage:
    """The usage to charge for sample `c` of a request of `messages` made with `params`."""
    claimed = c.usage
    allowed = allowed_output(params)
    flag: UsageFlag | None
    if not c.usage_reported:
        flag, claimed_out = "missing", None
    elif min(claimed.input_tokens, claimed.output_tokens, claimed.reasoning_tokens) < 0:
        flag, claimed_out = "negative", claimed
    elif claimed.output_tokens + claimed.reasoning_tokens > allowed:
        flag, claimed_out = "over_limit", claimed
    else:
        return CheckedUsage(claimed)
    local = Usage(input_tokens=estimate_input_tokens(messages, params.tools),
                  output_tokens=min(estimate_output_tokens(c), allowed))
    return CheckedUsage(local, flag, claimed_out)
