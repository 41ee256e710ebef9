"""`best_of_n` (S): N samples at temperature T, one of them selected.

Selectors (`selector`):
  oracle     the task's metric itself picks (first passing, else highest partial
             score): the pass@N ceiling, not a deployable method.
  verifier   a grounded instrument (`verifier`, default `execution;checks=visible`:
             the checks shown in the prompt) scores each sample; the best wins, ties
             broken by `ctx.rng` (`tie_break="rng"`) or the first sample ("first").
  llm        one listwise selector call (role `selector`) sees the task and the
             numbered samples and answers JSON {"selected_index": int}; a reply
             that does not parse falls back to sample 0 (and says so in `extra`).
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

import ast
import json
import re
from typing import Any

from tether.context import TrialContext
from tether.core.budget import BudgetExhausted
from tether.core.observation import Observation
from tether.errors import ConfigError
from tether.strategies.attempts import Attempt, fenced, sample
from tether.strategies.base import StrategyResult, register_strategy
from tether.strategies.keep_best import rank_key
from tether.strategies.prompting import task_messages

SELECTORS = ("oracle", "verifier", "llm", "majority")

SELECTOR_SYSTEM = (
    "You compare candidate solutions to one task and pick the one most likely to be "
    'correct. Answer with JSON only: {"selected_index": <index of the best candidate>}'
)


def normalize(kind: str, text: str) -> str:
    """The form majority voting compares: programs without comments or layout."""
    if kind in ("program", "scene"):
        try:
            return ast.unparse(ast.parse(text))
        except (SyntaxError, ValueError):
            lines = (re.sub(r"#.*$", "", line).rstrip() for line in text.splitlines())
            return "\n".join(line for line in lines if line)
    return " ".join(text.split())


def parse_selection(text: str, n: int) -> int | None:
    """`selected_index` from the selector's reply, or None when it is not usable."""
    for candidate in [*re.findall(r"\{.*?\}", text, re.S)]:
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        value = data.get("selected_index") if isinstance(data, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < n:
            return value
    return None


@register_strategy("best_of_n")
class BestOfN:
    name = "best_of_n"

    def __init__(self, n: int | str = 4, temperature: float = 0.8, selector: str = "oracle",
                 verifier: str = "execution;checks=visible", tie_break: str = "rng",
                 max_tokens: int = 1024, selector_max_tokens: int = 64,
                 score_all: bool = True, sample_tokens: int | None = None,
                 max_n: int | None = None) -> None:
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
        try:
            attempts = sample(ctx, task_messages(ctx.task), max_tokens=per_sample,
                              temperature=self.temperature, n=n)
        except BudgetExhausted as exc:
            return StrategyResult(None, status="budget_exhausted",
                                  extra={**extra, "budget": str(exc)})
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
            return StrategyResult(None, status="truncated", extra=extra)
        status = "ok"
        try:
            chosen = self._select(ctx, attempts, candidates, metric, extra)
        except BudgetExhausted as exc:
            chosen, status = candidates[0], "budget_exhausted"
            extra["selection_fallback"] = f"budget: {exc}"
        extra["selected_index"] = chosen
        return StrategyResult(attempts[chosen].artifact, status=status, extra=extra)

    # --- selection --------------------------------------------------------------
    def _select(self, ctx: TrialContext, attempts: list[Attempt], candidates: list[int],
                metric: dict[int, Observation], extra: dict[str, Any]) -> int:
        if len(candidates) == 1:
            return candidates[0]
        if self.selector == "oracle":
            return max(candidates, key=lambda i: rank_key(metric.get(i)))  # first on ties
        if self.selector == "verifier":
            return self._by_verifier(ctx, attempts, candidates, extra)
        if self.selector == "majority":
            return self._by_majority(ctx, attempts, candidates, extra)
        return self._by_llm(ctx, attempts, candidates, extra)

    def _by_verifier(self, ctx: TrialContext, attempts: list[Attempt], candidates: list[int],
                     extra: dict[str, Any]) -> int:
        obs = {i: ctx.observe(self.verifier, attempts[i].artifact, purpose="selection")
               for i in candidates}
        extra["verifier_scores"] = [obs[i].score if i in obs and obs[i].ok else None
                                    for i in range(len(attempts))]
        errors = [obs[i].error for i in candidates if obs[i].error]
        if errors:
            extra["verifier_errors"] = errors
        best = max(rank_key(obs[i]) for i in candidates)
        tied = [i for i in candidates if rank_key(obs[i]) == best]
        extra["verifier_tied"] = tied
        return ctx.rng.choice(tied) if self.tie_break == "rng" else tied[0]

    def _by_majority(self, ctx: TrialContext, attempts: list[Attempt], candidates: list[int],
                     extra: dict[str, Any]) -> int:
        groups: dict[str, list[int]] = {}
        for i in candidates:
            groups.setdefault(normalize(ctx.task.artifact_kind, attempts[i].artifact.text),
                              []).append(i)
        extra["majority_groups"] = sorted((len(g) for g in groups.values()), reverse=True)
        # dicts keep insertion order, and max keeps the first of equal sizes
        return max(groups.values(), key=len)[0]

    def _by_llm(self, ctx: TrialContext, attempts: list[Attempt], candidates: list[int],
                extra: dict[str, Any]) -> int:
        shown = "\n\n".join(f"Candidate {k}:\n{fenced(ctx, attempts[i].artifact.text)}"
                            for k, i in enumerate(candidates))
        messages = [
            {"role": "system", "content": SELECTOR_SYSTEM},
            {"role": "user", "content": f"Task:\n{ctx.task.prompt}\n\n{shown}\n\n"
             f"Which candidate (0 to {len(candidates) - 1}) is best? "
             'Answer {"selected_index": <int>}.'},
        ]
        (reply,) = ctx.generate("selector", messages, max_tokens=self.selector_max_tokens)
        k = parse_selection(reply.text, len(candidates))
        extra["selector_parsed"] = k is not None
        return candidates[k if k is not None else 0]
