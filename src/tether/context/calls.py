"""One charged call: the path every model call takes, inside a trial or beside one.

    completions = charged_generate(ledger, log, model, "teacher", messages, params)

The ledger reserves the request's `max_tokens` (plus, in `input+output` mode, a high
estimate of its prompt) *before* the call, lowering `max_tokens` to what is left and
raising `BudgetExhausted` when not one token fits; after the call it settles with the
usage the provider reported. Because the reservation bounds what the call may spend, the
recorded spend never exceeds the cap (invariant 2). Every completion is recorded in
`log` (role, request hash, usage, latency) by a `RecordingModel`.

The trial context (`TrialContext.generate`) adds seeds and the metric role on top of
this; a compile's teacher and a judge run call it with a ledger of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from tether.core import Ledger
from tether.models import (
    CallRecord,
    Completion,
    GenerateParams,
    Message,
    Model,
    RecordingModel,
    Usage,
)

__all__ = ["charged_generate"]


def charged_generate(ledger: Ledger | None, log: list[CallRecord], model: Model, role: str,
                     messages: list[Message], params: GenerateParams, *,
                     n: int = 1, seed: Callable[[], int] | None = None,
                     whole: bool = False) -> list[Completion]:
    """One budgeted, recorded call of `n` samples (see the module docstring).

    `ledger` None records the call without charging it (a metric's calls). The thinking
    budget is part of what the call may generate, so it is cut to fit the reservation
    and the answer gets what thinking leaves: their sum stays within it. `seed`, when
    given, draws the call's seed after the reservation, so a refused call uses none.
    `whole`: the call is made at its full `max_tokens` or refused (`Ledger.reserve`).
    """
    max_tokens, thinking_budget = params.max_tokens, params.thinking_budget
    allowed = (max_tokens if ledger is None
               else ledger.reserve(role, messages, max_tokens, n, tools=params.tools,
                                   whole=whole))
    answer_tokens = allowed
    if thinking_budget is not None:
        thinking_budget = min(thinking_budget, max(allowed - 1, 0)) or None
        # Backends ask the provider for max_tokens + thinking_budget.
        answer_tokens = allowed - (thinking_budget or 0)
    recorder = RecordingModel(model, log, role=role)
    usage = Usage()
    try:
        call = replace(params, max_tokens=answer_tokens, thinking_budget=thinking_budget,
                       seed=params.seed if seed is None else seed())
        completions = recorder.generate(messages, call, n=n, role=role)
        for c in completions:
            usage = usage + c.usage
    finally:
        if ledger is not None:
            ledger.settle(role, allowed * n, usage)
    return completions
