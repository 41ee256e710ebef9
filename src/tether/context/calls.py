"""One charged call: the path every model call takes, inside a trial or beside one.

    completions = charged_generate(ledger, log, model, "teacher", messages, params)

The ledger reserves the request's `max_tokens` (plus, in `input+output` mode, a high
estimate of its prompt) *before* the call, lowering `max_tokens` to what is left and
raising `BudgetExhausted` when not one token fits; after the call it settles with the
usage the provider reported, once that claim is checked against the reservation
(`tether.models.usage_check`: an impossible claim is charged a local count no larger than
what the request allowed, and flagged). Because the reservation bounds what the call may
be charged, the recorded spend never exceeds the cap (invariant 2), whatever a provider
claims. Every completion is recorded in `log` (role, request hash, usage, latency) by a
`RecordingModel`, and so is every sample of a call that failed after it was sent.

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
    # this call's records, kept apart so a failed call's answered samples are charged
    # too (the trial's log is shared with calls running beside this one)
    records: list[CallRecord] = []
    recorder = RecordingModel(model, records, role=role)
    try:
        call = replace(params, max_tokens=answer_tokens, thinking_budget=thinking_budget,
                       seed=params.seed if seed is None else seed())
        return recorder.generate(messages, call, n=n, role=role)
    finally:
        log.extend(records)
        if ledger is not None:
            # each record's usage is checked against the call's allowance (usage_check),
            # so what is settled never exceeds what was reserved
            ledger.settle(role, allowed * n, sum((r.usage for r in records), Usage()))
