"""`reasoning` (R): one proposer call that may think before it answers.

Modes (`mode`):
  native  the backend's own thinking: Anthropic extended thinking, or reasoning effort
          for OpenAI-compatible reasoning models (spec option `;reasoning=1`); the
          backend maps `thinking_budget`.
  prompt  a think-then-answer prompt: the model writes its thinking inside
          <think>...</think>, then the answer. The thinking is output text, so it is
          charged to the budget like any output; extraction drops it.
  auto    (default) native when the proposer's model supports it, else prompt.

Tokens: the call may generate `total` tokens, where `total` is
`thinking_budget + max_tokens` capped by what the budget has left for the proposer
(all of it when `thinking_budget` is not given and the budget is finite; 4096 +
`max_tokens` when it is unlimited). In native mode the answer gets
`min(max_tokens, total // 2)` and thinking the rest; in prompt mode one reply of up
to `total` tokens holds both. A native thinking budget below `min_thinking` (default
1024, Anthropic's minimum) is not requested: the call answers without thinking, as
the interaction-scaling study's R did at B = 1K.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from tether import params
from tether.context import TrialContext
from tether.core import BudgetExhausted, Truncated
from tether.models import GenerateKwargs, Message, Model
from tether.strategies.base import StrategyResult, register_strategy
from tether.strategies.prompting import task_messages, to_artifact

UNLIMITED_THINKING = 4096

THINK_INSTRUCTION = (
    "\n\nFirst think step by step inside <think> and </think> (about {words} words at "
    "most): work out the approach, the edge cases and how you will check them. After "
    "</think>, give the final answer."
)


def supports_native_thinking(model: Model) -> bool:
    """Whether the backend maps `thinking_budget` to the provider's own thinking."""
    from tether.models import AnthropicModel

    while True:
        if isinstance(model, AnthropicModel) or getattr(model, "reasoning", False) is True:
            return True
        inner = getattr(model, "inner", None)  # caches and recorders wrap a model
        if inner is None:
            return False
        model = inner


@register_strategy("reasoning")
class Reasoning:
    name: ClassVar[str] = "reasoning"
    #: its one call's role
    roles: ClassVar[tuple[str, ...]] = ("proposer",)

    class Params(params.Params):
        mode: Literal["auto", "native", "prompt"] = Field(
            "auto", description="native thinking, a think-first prompt, or auto (native "
                                "where the proposer supports it)")
        thinking_budget: params.CountFromZero | None = Field(
            None, description="thinking tokens of the call; none: what the budget allows")
        max_tokens: params.Tokens = Field(1024, description="most tokens of the answer")
        temperature: params.Temperature = Field(0.0, description="sampling temperature")
        min_thinking: params.CountFromZero = Field(1024, description="less thinking room "
                                                                     "than this turns "
                                                                     "native thinking off")

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()

    def _total(self, ctx: TrialContext, messages: list[Message]) -> int:
        p = self.params
        wanted = (p.thinking_budget if p.thinking_budget is not None
                  else UNLIMITED_THINKING) + p.max_tokens
        room = ctx.ledger.room("proposer", messages)  # the prompt too, if it is charged
        if room is None:
            return wanted
        if p.thinking_budget is None:
            return max(room, 1)
        return max(min(wanted, room), 1)

    def run(self, ctx: TrialContext) -> StrategyResult:
        p = self.params
        mode = p.mode
        if mode == "auto":
            mode = "native" if supports_native_thinking(ctx.model("proposer")) else "prompt"
        messages = task_messages(ctx.task)
        total = self._total(ctx, messages)
        extra: dict[str, Any] = {"mode": mode, "call_tokens": total}
        if mode == "native":
            answer = min(p.max_tokens, max(total // 2, 1))
            thinking = total - answer
            if thinking < p.min_thinking:
                thinking = 0
            extra["thinking_budget"] = thinking
            call: GenerateKwargs = {
                "max_tokens": total if thinking else min(total, p.max_tokens),
                "thinking_budget": thinking or None}
        else:
            messages = [*messages[:-1], {
                "role": "user",
                "content": messages[-1]["content"] + THINK_INSTRUCTION.format(
                    words=max((total - p.max_tokens) * 3 // 4, 50)),
            }]
            call = {"max_tokens": total}
        call["temperature"] = p.temperature
        try:
            (completion,) = ctx.generate("proposer", messages, **call)
        except BudgetExhausted as exc:
            return StrategyResult(None, status="budget_exhausted", extra={**extra,
                                                                         "budget": str(exc)})
        extra["reasoning_chars"] = len(completion.reasoning or "")
        try:
            artifact = to_artifact(ctx.task, completion)
        except Truncated as exc:
            return StrategyResult(None, status="truncated", extra={**extra, "truncated": str(exc)})
        ctx.keep(artifact)
        return StrategyResult(artifact, extra=extra)
