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
an equal share). With `draft_temperature` set, sample 0 is the single-shot draft instead
(its own call, first in the trial, at that temperature: the single-shot arm's, so with
greedy decoding sample 0 is the single-shot arm's artifact) and the other n - 1 samples
come from a second call at `temperature`; with the verifier selector and
`tie_break="first"`, a draft that passes every visible check is kept over later samples
that only tie with it. A small model's samples at a useful temperature are mostly worse
than its greedy draft; this keeps the draft in the running.
`n="auto"` sizes N by the budget: N = max(1, room // sample_tokens),
at most `max_n`, where `sample_tokens` (default `max_tokens`) is the nominal cost of
one sample; sample_tokens=1500 with max_n=10 gives the interaction-scaling study's
N = 1, 3, 10 at B = 1K, 5K, 20K.
With the `llm` selector and a finite budget without a `selector` share, the samples
leave `selector_max_tokens` for the selector call. `score_all` (default true) scores
every sample with the metric for the record (pass@N analysis); only the oracle
uses those scores to select. `extra["single_shot_score"]` is the first sample's.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from tether import params
from tether.context import TrialContext, instrument_roles
from tether.core import BudgetExhausted, Observation, SelectionFacts
from tether.errors import ConfigError
from tether.instruments import InstrumentSpec
from tether.strategies.attempts import (
    PROPOSER_ROLE,
    Attempt,
    fenced,
    sample,
    single_shot_draft,
)
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

SELECTORS = ("oracle", "verifier", "llm", "majority")
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

__all__ = ["SELECTORS", "SELECTOR_RETRY", "SELECTOR_SYSTEM", "BestOfN", "normalize"]


def _text(attempt: Attempt) -> str:
    """A candidate's artifact text: candidates are the attempts that have an artifact."""
    assert attempt.artifact is not None
    return attempt.artifact.text


@register_strategy("best_of_n")
class BestOfN:
    name: ClassVar[str] = "best_of_n"

    class Params(params.Params):
        n: Annotated[int, Field(ge=1)] | Literal["auto"] = Field(
            4, description="samples per trial, or auto: as many as the budget buys")
        temperature: float = Field(0.8, description="sampling temperature of the samples")
        selector: Literal["oracle", "verifier", "llm", "majority"] = Field(
            "oracle", description="how one sample is selected (see the strategy's page)")
        verifier: InstrumentSpec = Field(
            "execution;checks=visible", description="the verifier selector's instrument spec")
        tie_break: Literal["rng", "first"] = Field(
            "rng", description="the verifier's ties: the trial's rng, or the first sample")
        max_tokens: int = Field(1024, description="most tokens of one sample")
        selector_max_tokens: int = Field(64, description="most tokens of the llm selector's reply")
        score_all: bool = Field(True, description="score every sample with the metric, "
                                                  "for the record")
        sample_tokens: int | None = Field(
            None, description="nominal cost of one sample for n = auto (default max_tokens)")
        max_n: int | None = Field(None, description="most samples for n = auto")
        selector_retries: int = Field(DEFAULT_RETRIES, description="an unusable llm "
                                      "selector reply is sent back this many times")
        draft_temperature: float | None = Field(
            None, description="sample 0 is the single-shot draft at this temperature "
                              "(its own call); none: every sample at temperature")

        def roles(self) -> tuple[str, ...]:
            if self.selector == "llm":
                return (PROPOSER_ROLE, SELECTOR_ROLE)
            if self.selector == "verifier":
                return tuple(dict.fromkeys((PROPOSER_ROLE,
                                            *instrument_roles(self.verifier, "selection"))))
            return (PROPOSER_ROLE,)

    def __init__(self, n: int | str = 4, temperature: float = 0.8, selector: str = "oracle",
                 verifier: str = "execution;checks=visible", tie_break: str = "rng",
                 max_tokens: int = 1024, selector_max_tokens: int = 64,
                 score_all: bool = True, sample_tokens: int | None = None,
                 max_n: int | None = None, selector_retries: int = DEFAULT_RETRIES,
                 draft_temperature: float | None = None) -> None:
        if selector not in SELECTORS:
            raise ConfigError(f"best_of_n: selector must be one of {', '.join(SELECTORS)}, "
                              f"not {selector!r}")
        if tie_break not in ("rng", "first"):
            raise ConfigError(f"best_of_n: tie_break must be rng or first, not {tie_break!r}")
        if n != "auto" and (not isinstance(n, int) or n < 1):
            raise ConfigError(f"best_of_n: n must be a positive integer or 'auto', not {n!r}")
        self.n, self.temperature, self.selector = n, temperature, selector
        self.verifier, self.tie_break = verifier, tie_break
        self.max_tokens, self.selector_max_tokens = max_tokens, selector_max_tokens
        self.score_all = score_all
        self.sample_tokens = sample_tokens or max_tokens
        self.max_n = max_n
        self.selector_retries = selector_retries
        self.draft_temperature = draft_temperature

    @property
    def roles(self) -> tuple[str, ...]:
        """The proposer's samples, plus the `llm` selector's call or a model-backed
        verifier's (it observes for selection)."""
        return self.Params.model_construct(selector=self.selector,
                                           verifier=self.verifier).roles()

    # --- sampling ---------------------------------------------------------------
    def _plan(self, ctx: TrialContext) -> tuple[int, int]:
        """(number of samples, max tokens per sample) for this trial's budget."""
        spec = ctx.ledger.spec
        room = ctx.ledger.room("proposer")
        if (room is not None and self.selector == "llm"
                and not {"proposer", "selector"} & set(spec.shares)):
            room -= self.selector_max_tokens  # the selector's call comes out of the same pool
        if self.n == "auto":
            n = 1 if room is None else max(1, room // self.sample_tokens)
            n = min(n, self.max_n) if self.max_n else n
        else:
            n = int(self.n)
        per_sample = self.max_tokens if room is None else max(1, min(self.max_tokens,
                                                                     room // n))
        return n, per_sample

    def run(self, ctx: TrialContext) -> StrategyResult:
        n, per_sample = self._plan(ctx)
        extra: dict[str, Any] = {"n": n, "selector": self.selector, "temperature":
                                 self.temperature}
        if self.draft_temperature is not None:
            extra["draft_temperature"] = self.draft_temperature
        try:
            attempts = self._samples(ctx, n, per_sample)
        except BudgetExhausted as exc:
            return StrategyResult(None, status="budget_exhausted",
                                  # Facts keep unknown keys (extra="allow"), as `budget` here
                                  facts=SelectionFacts(**extra, budget=str(exc)))  # type: ignore[call-arg]
        extra["sample_status"] = [a.status for a in attempts]
        extra["sample_artifacts"] = [a.artifact.digest if a.artifact else None for a in attempts]
        metric: dict[int, Observation] = {}
        if self.score_all or self.selector == "oracle":
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
        # samples the budget refused after the draft: the trial ran out, whatever it delivers
        status = "budget_exhausted" if "refused" in extra["sample_status"] else "ok"
        try:
            chosen = self._select(ctx, attempts, candidates, metric, extra)
        except BudgetExhausted as exc:
            chosen, status = candidates[0], "budget_exhausted"
            extra["selection_fallback"] = f"budget: {exc}"
        extra["selected_index"] = chosen
        return StrategyResult(attempts[chosen].artifact, status=status,
                              facts=SelectionFacts(**extra))

    def _samples(self, ctx: TrialContext, n: int, per_sample: int) -> list[Attempt]:
        """The n attempts: one call of n samples, or the single-shot draft and n - 1 more."""
        if self.draft_temperature is None:
            return sample(ctx, task_messages(ctx.task), max_tokens=per_sample,
                          temperature=self.temperature, n=n)
        attempts = [single_shot_draft(ctx, max_tokens=per_sample,
                                      temperature=self.draft_temperature)]
        if n > 1:
            # the draft's call already went through: a refusal here keeps it as the only
            # sample and says so, instead of discarding a paid-for artifact
            try:
                attempts += sample(ctx, task_messages(ctx.task), max_tokens=per_sample,
                                   temperature=self.temperature, n=n - 1)
            except BudgetExhausted:
                attempts += [Attempt("", None, "refused")] * (n - 1)
        return attempts

    # --- selection --------------------------------------------------------------
    def _select(self, ctx: TrialContext, attempts: list[Attempt], candidates: list[int],
                metric: dict[int, Observation], extra: dict[str, Any]) -> int:
        if len(candidates) == 1:
            return candidates[0]
        if self.selector == "oracle":
            return by_oracle(candidates, metric)
        if self.selector == "llm":
            return self._by_llm(ctx, attempts, candidates, extra)
        if self.selector == "verifier":
            chosen, facts = by_verifier(ctx, self.verifier, [a.artifact for a in attempts],
                                        candidates, self.tie_break)
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
                           max_tokens=self.selector_max_tokens,
                           retries=self.selector_retries, retry_template=SELECTOR_RETRY)
        extra["selector_parsed"] = not selection.failed
        extra["selection"] = selection.to_json()
        return candidates[selection.index]
