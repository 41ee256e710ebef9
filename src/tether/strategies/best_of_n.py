"""`best_of_n` (S): N samples at temperature T, one of them selected.

Selectors (`selector`, the shared policies of `tether.strategies.selection`):
  oracle     the task's metric itself picks (first passing, else highest partial
             score): the pass@N ceiling, not a deployable method.
  verifier   a grounded instrument (`verifier`, default `execution;checks=visible`:
             the checks shown in the prompt) scores each sample; the best wins, ties
             broken by `ctx.rng` (`tie_break="rng"`) or the first sample ("first").
  llm        a listwise selector call (role `selector`) sees the task and the
             numbered samples and answers JSON {"selected_index": int}. The rules are
             turn-BoN's (`tether.strategies.selection.select`): an unusable reply is sent
             back with its error up to `selector_retries` times (default 3; 0 is the
             single call best-of-N made before), then the choice falls back to sample 0
             (`extra["selector_parsed"]` false, `extra["selection"]` the replies and
             errors); a selector prompt over the model's context also falls back to 0.
  majority   vote over normalized outputs (programs: `ast.unparse`, which drops
             comments and formatting; else whitespace-collapsed text); the largest
             group wins, ties to the group seen first.

Samples come from one call with n = `n` (per-sample tokens capped by the budget to
an equal share). `n="auto"` sizes N by the budget: N = max(1, room // sample_tokens),
at most `max_n`, where `sample_tokens` (default `max_tokens`) is the nominal cost of
one sample; sample_tokens=1500 with max_n=10 gives the interaction-scaling study's
N = 1, 3, 10 at B = 1K, 5K, 20K.
With the `llm` selector and a finite budget without a `selector` share, the samples
leave `selector_max_tokens` for the selector call. `score_all` (default true) scores
every sample with the metric for the record (pass@N analysis); only the oracle
uses those scores to select. `extra["single_shot_score"]` is the first sample's.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from tether import params
from tether.context import TrialContext, instrument_roles
from tether.core import BudgetExhausted, Observation, SelectionFacts
from tether.instruments import InstrumentSpec
from tether.strategies.attempts import PROPOSER_ROLE, Attempt, fenced, sample
from tether.strategies.base import StrategyResult, register_strategy
from tether.strategies.prompting import task_messages
from tether.strategies.selection import (
    DEFAULT_RETRIES,
    by_majority,
    by_oracle,
    by_verifier,
    normalize,
    select,
)

#: the role of the `llm` selector's call
SELECTOR_ROLE = "selector"

SELECTOR_SYSTEM = (
    "You compare candidate solutions to one task and pick the one most likely to be "
    'correct. Answer with JSON only: {"selected_index": <index of the best candidate>}'
)
#: sent back after an unusable answer (this selector's answer form has no rationale)
SELECTOR_RETRY = """\
Your answer could not be used: {{ error }}
Answer again with JSON only: {"selected_index": <integer from 0 to {{ n - 1 }}>}."""

__all__ = ["SELECTOR_RETRY", "SELECTOR_SYSTEM", "BestOfN", "normalize"]


def _text(attempt: Attempt) -> str:
    """A candidate's artifact text: candidates are the attempts that have an artifact."""
    assert attempt.artifact is not None
    return attempt.artifact.text


@register_strategy("best_of_n")
class BestOfN:
    name: ClassVar[str] = "best_of_n"

    class Params(params.Params):
        n: params.Count | Literal["auto"] = Field(
            4, description="samples per trial, or auto: as many as the budget buys")
        temperature: params.Temperature = Field(0.8, description="sampling temperature of "
                                                                 "the samples")
        selector: Literal["oracle", "verifier", "llm", "majority"] = Field(
            "oracle", description="how one sample is selected (see the strategy's page)")
        verifier: InstrumentSpec = Field(
            "execution;checks=visible", description="the verifier selector's instrument spec")
        tie_break: Literal["rng", "first"] = Field(
            "rng", description="the verifier's ties: the trial's rng, or the first sample")
        max_tokens: params.Tokens = Field(1024, description="most tokens of one sample")
        selector_max_tokens: params.Tokens = Field(64, description="most tokens of the llm "
                                                                   "selector's reply")
        score_all: bool = Field(True, description="score every sample with the metric, "
                                                  "for the record")
        sample_tokens: params.Tokens | None = Field(
            None, description="nominal cost of one sample for n = auto (default max_tokens)")
        max_n: params.Count | None = Field(None, description="most samples for n = auto")
        selector_retries: params.CountFromZero = Field(
            DEFAULT_RETRIES, description="an unusable llm selector reply is sent back this "
                                         "many times")

        def roles(self) -> tuple[str, ...]:
            if self.selector == "llm":
                return (PROPOSER_ROLE, SELECTOR_ROLE)
            if self.selector == "verifier":
                return tuple(dict.fromkeys((PROPOSER_ROLE,
                                            *instrument_roles(self.verifier, "selection"))))
            return (PROPOSER_ROLE,)

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()

    @property
    def roles(self) -> tuple[str, ...]:
        """The proposer's samples, plus the `llm` selector's call or a model-backed
        verifier's (it observes for selection)."""
        return self.params.roles()

    # --- sampling ---------------------------------------------------------------
    def _plan(self, ctx: TrialContext) -> tuple[int, int]:
        """(number of samples, max tokens per sample) for this trial's budget."""
        p = self.params
        spec = ctx.ledger.spec
        room = ctx.ledger.room("proposer")
        if (room is not None and p.selector == "llm"
                and not {"proposer", "selector"} & set(spec.shares)):
            room -= p.selector_max_tokens  # the selector's call comes out of the same pool
        if p.n == "auto":
            n = 1 if room is None else max(1, room // (p.sample_tokens or p.max_tokens))
            n = min(n, p.max_n) if p.max_n else n
        else:
            n = int(p.n)
        per_sample = p.max_tokens if room is None else max(1, min(p.max_tokens, room // n))
        return n, per_sample

    def run(self, ctx: TrialContext) -> StrategyResult:
        p = self.params
        n, per_sample = self._plan(ctx)
        extra: dict[str, Any] = {"n": n, "selector": p.selector, "temperature": p.temperature}
        try:
            attempts = sample(ctx, task_messages(ctx.task), max_tokens=per_sample,
                              temperature=p.temperature, n=n)
        except BudgetExhausted as exc:
            return StrategyResult(None, status="budget_exhausted",
                                  # Facts keep unknown keys (extra="allow"), as `budget` here
                                  facts=SelectionFacts(**extra, budget=str(exc)))
        extra["sample_status"] = [a.status for a in attempts]
        extra["sample_artifacts"] = [a.artifact.digest if a.artifact else None for a in attempts]
        metric: dict[int, Observation] = {}
        if p.score_all or p.selector == "oracle":
            metric = {i: ctx.metric(a.artifact) for i, a in enumerate(attempts) if a.artifact}
            extra["sample_scores"] = [metric[i].score if i in metric and metric[i].ok
                                      else None for i in range(len(attempts))]
            extra["sample_passed"] = [metric[i].passed if i in metric and metric[i].ok
                                      else None for i in range(len(attempts))]
        first = metric.get(0)
        extra["single_shot_score"] = (first.score if first is not None and first.ok
                                      else (0.0 if attempts[0].artifact is None else None))
        extra["single_shot_passed"] = (first.passed if first is not None and first.ok
                                       else (False if attempts[0].artifact is None else None))
        candidates = [i for i, a in enumerate(attempts) if a.artifact is not None]
        if not candidates:
            return StrategyResult(None, status="truncated", facts=SelectionFacts(**extra))
        status = "ok"
        try:
            chosen = self._select(ctx, attempts, candidates, metric, extra)
        except BudgetExhausted as exc:
            chosen, status = candidates[0], "budget_exhausted"
            extra["selection_fallback"] = f"budget: {exc}"
        extra["selected_index"] = chosen
        return StrategyResult(attempts[chosen].artifact, status=status,
                              facts=SelectionFacts(**extra))

    # --- selection --------------------------------------------------------------
    def _select(self, ctx: TrialContext, attempts: list[Attempt], candidates: list[int],
                metric: dict[int, Observation], extra: dict[str, Any]) -> int:
        if len(candidates) == 1:
            return candidates[0]
        p = self.params
        if p.selector == "oracle":
            return by_oracle(candidates, metric)
        if p.selector == "llm":
            return self._by_llm(ctx, attempts, candidates, extra)
        if p.selector == "verifier":
            chosen, facts = by_verifier(ctx, p.verifier, [a.artifact for a in attempts],
                                        candidates, p.tie_break)
        else:
            chosen, facts = by_majority(ctx.task.artifact_kind,
                                        {i: _text(attempts[i]) for i in candidates},
                                        candidates)
        extra.update(facts)
        return chosen

    def _by_llm(self, ctx: TrialContext, attempts: list[Attempt], candidates: list[int],
                extra: dict[str, Any]) -> int:
        shown = "\n\n".join(f"Candidate {k}:\n{fenced(ctx, _text(attempts[i]))}"
                            for k, i in enumerate(candidates))
        user = (f"Task:\n{ctx.task.prompt}\n\n{shown}\n\n"
                f"Which candidate (0 to {len(candidates) - 1}) is best? "
                'Answer {"selected_index": <int>}.')
        selection = select(ctx, SELECTOR_SYSTEM, user, len(candidates),
                           max_tokens=self.params.selector_max_tokens,
                           retries=self.params.selector_retries, retry_template=SELECTOR_RETRY)
        extra["selector_parsed"] = not selection.failed
        extra["selection"] = selection.to_json()
        return candidates[selection.index]
