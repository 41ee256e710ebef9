"""Selection policies: how one of N samples (or attempts) is chosen.

Shared by best-of-N (`strategies.best_of_n`: all four), turn-level best-of-N
(`agents.turn_bon`: llm) and trajectory best-of-N (`strategies.trajectory_bon`: llm).

  oracle    the task's metric picks (`by_oracle`): first passing, else the highest
            partial score, first on ties. The pass@N ceiling, not a deployable method.
  verifier  a grounded instrument scores each option (`by_verifier`, purpose
            "selection"); the best wins, ties broken by `ctx.rng` or the first option.
  majority  vote over normalized texts (`by_majority`, `normalize`); the largest
            group wins, ties to the group seen first.
  llm       listwise: a model reads the N options at once and names one (`select`).

The llm selector's reply must hold a JSON object with an integer `selected_index`
(and, where the caller's prompt asks for it, a `rationale` string); the first JSON
object in the reply, private reasoning removed, is the answer. An unusable answer is
sent back with its parse error (the caller's retry template), up to `retries` times;
after that, or when the selector's prompt no longer fits its context, the choice
falls back to option 0 and the selection is flagged failed. Option 0 of i.i.d.
samples is an unbiased draw, i.e. exactly what the policy without a selector would
have done, so a failed selector costs tokens but never biases the comparison.
BudgetExhausted (first call or retry) propagates: the caller decides what it ends.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jinja2 import Environment, StrictUndefined, TemplateError

from tether.context import TrialContext
from tether.core import Artifact, Observation, rank_key
from tether.errors import ConfigError
from tether.models import (
    ContextLengthExceeded,
    Message,
    NoJSONError,
    first_json,
    strip_private_reasoning,
)

_JINJA = Environment(undefined=StrictUndefined, keep_trailing_newline=False,
                     autoescape=False)


def render(template: str, **variables: Any) -> str:
    """Render a prompt template (jinja2, StrictUndefined): a missing variable or a syntax
    error is a ConfigError at the first render, never a silently empty prompt."""
    try:
        return _JINJA.from_string(template).render(**variables)
    except TemplateError as exc:
        raise ConfigError(f"prompt template: {type(exc).__name__}: {exc}",
                          hint="check the template's variable names against the ones its "
                               "strategy documents for it") from None


#: sent back after an unusable listwise answer (the caller may give its own)
SELECTOR_RETRY = """\
Your answer could not be used: {{ error }}
Answer again with exactly one JSON object following the schema \
{"rationale": "<why>", "selected_index": <integer from 0 to {{ n - 1 }}>}."""


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


#: reasoning effort levels and the thinking budget each stands for (the OpenAI backend
#: maps a budget back to the same level; Anthropic takes the budget itself). "max" is
#: the level some providers name above "high" (the turn-level best-of-N paper's Kimi-K3
#: selector ran at its default "max"; its Deepseek selector at "high").
REASONING_EFFORT = {"low": 2048, "medium": 16384, "high": 32768, "max": 65536}


def thinking_tokens(thinking_budget: int | None, reasoning_effort: str | None) -> int | None:
    """The selector's thinking budget from either setting (both given: the budget wins)."""
    if reasoning_effort is not None and reasoning_effort not in REASONING_EFFORT:
        raise ConfigError(f"selector: reasoning_effort must be one of "
                          f"{', '.join(REASONING_EFFORT)}, got {reasoning_effort!r}")
    if thinking_budget is not None:
        if int(thinking_budget) < 1:
            raise ConfigError(f"selector: thinking_budget must be at least 1, "
                              f"got {thinking_budget}")
        return int(thinking_budget)
    return REASONING_EFFORT[reasoning_effort] if reasoning_effort else None


def select(ctx: TrialContext, system: str, user: str, n: int, *, role: str = "selector",
           max_tokens: int = 512, temperature: float = 0.0,
           retries: int = DEFAULT_RETRIES, retry_template: str = SELECTOR_RETRY,
           thinking_budget: int | None = None) -> Selection:
    """Ask the `role` model to pick one of `n` options described in `user`.

    `retry_template` (rendered with `error` and `n`) is the message sent back after an
    unusable answer; callers whose prompt asks for a different answer form pass their own.
    `thinking_budget` (reasoning tokens, on top of `max_tokens` for the answer) is passed
    to the model as every backend takes it (an effort level for OpenAI reasoning models).

    BudgetExhausted propagates (the caller's attempt ends); a selector whose prompt no
    longer fits its context counts as a failed selection, not as the agent's failure.
    """
    messages: list[Message] = [{"role": "system", "content": system},
                               {"role": "user", "content": user}]
    selection = Selection(index=0)
    for _ in range(retries + 1):
        try:
            # the context counts thinking inside max_tokens: the answer keeps its own
            (reply,) = ctx.generate(role, messages,
                                    max_tokens=max_tokens + (thinking_budget or 0),
                                    temperature=temperature, thinking_budget=thinking_budget)
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
                    {"role": "user", "content": render(retry_template, error=error, n=n)}]
    selection.index, selection.failed = 0, True
    return selection


# --- grounded and model-free policies ----------------------------------------------
def by_oracle(candidates: Sequence[int], metric: Mapping[int, Observation]) -> int:
    """The candidate the task's metric ranks best (`rank_key`); the first on ties."""
    return max(candidates, key=lambda i: rank_key(metric.get(i)))  # max keeps the first


def by_verifier(ctx: TrialContext, verifier: str, artifacts: Sequence[Artifact | None],
                candidates: Sequence[int], tie_break: str = "rng") -> tuple[int, dict[str, Any]]:
    """The candidate the `verifier` instrument ranks best; ties broken by `ctx.rng`
    (`tie_break="rng"`) or to the first. Returns (index, facts for the record)."""
    # candidates index only the artifacts that are not None (the callers' contract)
    obs = {i: ctx.observe(verifier, artifacts[i], purpose="selection")  # type: ignore[arg-type]
           for i in candidates}
    facts: dict[str, Any] = {"verifier_scores": [obs[i].score if i in obs and obs[i].ok
                                                 else None for i in range(len(artifacts))]}
    errors = [obs[i].error for i in candidates if obs[i].error]
    if errors:
        facts["verifier_errors"] = errors
    best = max(rank_key(obs[i]) for i in candidates)
    tied = [i for i in candidates if rank_key(obs[i]) == best]
    facts["verifier_tied"] = tied
    return (ctx.rng.choice(tied) if tie_break == "rng" else tied[0]), facts


def normalize(kind: str, text: str) -> str:
    """The form majority voting compares: programs without comments or layout."""
    if kind in ("program", "scene"):
        try:
            return ast.unparse(ast.parse(text))
        except (SyntaxError, ValueError):
            lines = (re.sub(r"#.*$", "", line).rstrip() for line in text.splitlines())
            return "\n".join(line for line in lines if line)
    return " ".join(text.split())


def by_majority(kind: str, texts: Mapping[int, str],
                candidates: Sequence[int]) -> tuple[int, dict[str, Any]]:
    """The first member of the largest group of equal normalized texts (ties to the
    group seen first). Returns (index, facts: the group sizes, largest first)."""
    groups: dict[str, list[int]] = {}
    for i in candidates:
        groups.setdefault(normalize(kind, texts[i]), []).append(i)
    sizes = sorted((len(g) for g in groups.values()), reverse=True)
    # dicts keep insertion order, and max keeps the first of equal sizes
    return max(groups.values(), key=len)[0], {"majority_groups": sizes}

