"""The GEPA comparator: GEPA (the `gepa` package) searches a harness's prompt texts for
the same student, on the same probe and validation items, with the compile's teacher as
its reflection model, under a teacher token budget as large as the build's.

    row = run_gepa(ScoringEnv(setting, splits, scorer, seed, sizes), arm_store, teacher, match,
                   seed=search_seed)

How it is matched with the compile (the paper's Table 43 compares the two searches):
- candidate: the parts of the bare harness the config's `gepa_variant` names
  (gepa_variants.py: `prompt`, the default, the prompt templates alone, as the paper's
  GEPA-prompt; `content` also the resources; `structured` also decode, answer mode and
  the parse hook), seeded with the bare harness's (`{"answer": "{question}"}`); the
  rest of a candidate is the bare harness's. The record names the variant and the parts
  it searched (`variant`, `searched`);
- trainset = the probe items (GEPA reflects on minibatches of them; its reflective
  dataset shows each item's question, the student's reply and answer, and the metric's
  feedback with the gold answer, as the teacher's probe traces do), valset = the
  validation items (GEPA's Pareto front and its choice of the best candidate); the
  adapter refuses to reflect on any other item, so validation gold never reaches the
  teacher, and test items are never scored before the arm is frozen;
- every candidate is checked for admissibility first (the compile's checks, the
  hard-coded-answer audit on probe and validation gold included); an inadmissible one
  scores 0 on every item and its feedback names the violations;
- scores: the compile's student and metric through the same runtime (SplitScorer),
  each item a trial of the compile's run in the search's own scope (`gepaK`: its
  strategy params say `search`); an infrastructure error counts 0 in GEPA's search (its
  API takes a number) and is never scored on test;
- reflection: each GEPA reflection is one `TeacherClient` call (the charged path:
  reserved before the call, recorded as a `teacher_call` event of scope `K/gepa`,
  replayed on resume);
- budget (`GepaMatch`): teacher tokens = the compile's `teacher_token_budget`, or where
  it has none the tokens the build's own teacher spent; metric calls = the probe and
  validation item scorings the build's loop made, unless the config sets
  `gepa_metric_calls` (the paper's GEPA runs 3,000); both numbers are recorded
  (`budget.metric_calls`, `budget.build_metric_calls`, `budget.metric_calls_source`).
  GEPA checks the budget between its steps, so a search may end a few calls past it.
  A call the budget refuses ends the
  search cleanly (a stop condition), and GEPA's best candidate so far is the result; so
  does a third teacher failure in a row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tether.errors import ConfigError, TetherError
from tether.systems.compile.admissibility import check_harness
from tether.systems.compile.compiler.build_records import BuildRecords
from tether.systems.compile.compiler.evidence import stage_of, trace_of
from tether.systems.compile.compiler.gepa_variants import (
    OUTPUT,
    PARSE,
    RESOURCES,
    candidate_of,
    harness_of,
    searched_parts,
)
from tether.systems.compile.compiler.prompts import resources_of
from tether.systems.compile.compiler.scoring import ScoringEnv, SplitScore
from tether.systems.compile.compiler.teacher import TeacherClient
from tether.systems.compile.harness import Harness, bare_harness
from tether.systems.compile.prompt_fields import observation_fields
from tether.systems.compile.setting import Item

if TYPE_CHECKING:  # the gepa extra: imported where the arm runs
    from gepa import EvaluationBatch
    from gepa.core.adapter import ProposalFn

#: what the adapter returns per item: its trace (what reflection reads) and its answer
Trace = dict[str, Any]

__all__ = ["GEPA_EXTRA_HINT", "PROMPT_PART", "REFLECTION_HEAD", "GepaMatch", "HarnessAdapter",
           "TeacherReflection", "matched_budget", "require_gepa", "run_gepa"]

GEPA_EXTRA_HINT = "pip install 'tether[gepa]' (the gepa extra)"
#: teacher failures in a row (not refusals) after which the search stops
MAX_TEACHER_FAILURES = 3
_LOG_LINES = 200
#: the probe evidence's failure stages (evidence.py) in words for a reader without the
#: teacher's manual
STAGES = {"abstain": "the harness abstained", "verdict": "a code verdict was wrong",
          "routing": "the harness hit its step limit",
          "parse": "the reply holds the answer, but the answer taken from it does not",
          "read": "the answer was in the prompt, and the reply missed it",
          "pick": "the wrong candidate was picked",
          "evidence": "the prompt did not contain the answer"}

# GEPA's reflection prompt for a tether prompt template: GEPA's own default speaks of
# "instructions to an assistant"; a template has placeholders that must survive.
REFLECTION_HEAD = "You are improving one part of a harness"
PROMPT_PART = "(one prompt template)"
REFLECTION_TEMPLATE = REFLECTION_HEAD + " " + PROMPT_PART + """ around a small, frozen \
student model. The template now reads:
```
<curr_param>
```
Before the student sees it, each placeholder in braces is replaced by a field of the item \
(FIELDS). The template must keep the question placeholder and may contain no other braces.

The student's results with this template on some practice items (the question, what the \
student replied, the answer taken from the reply, and the metric's feedback):
```
<side_info>
```
Write a better template for this student: infer the task and the answer format the metric \
expects from the examples, and say what the student should do. Reply with the new template \
alone inside one ``` block."""

_RESULTS = """The student's results with the harness on some practice items (the question, \
what the student replied, the answer taken from the reply, and the metric's feedback):
```
<side_info>
```
"""
# the variants' other components (gepa_variants.py): the same evidence, their own format
PART_TEMPLATES = {
    RESOURCES: REFLECTION_HEAD + """ (its resources: what the student is shown) around a \
small, frozen student model. The resources object now reads:
```
<curr_param>
```
The setting offers these resources, with example options: OFFERED. An enabled resource \
fills the prompt placeholder of its field; a prompt that names a field no enabled resource \
fills cannot run.
""" + _RESULTS + """Write a better resources object for this student. Reply with the JSON \
object alone inside one ``` block.""",
    OUTPUT: REFLECTION_HEAD + """ (its decoding and answer mode) around a small, frozen \
student model. They now read:
```
<curr_param>
```
A JSON object {"decode": {"max_tokens": N, "temperature": T}, "answer_mode": \
"defer" | "suggest" | "verdict"}.
""" + _RESULTS + """Write better settings for this student. Reply with the JSON object \
alone inside one ``` block.""",
    PARSE: REFLECTION_HEAD + """ (its parse hook) around a small, frozen student model. \
The hook is Python, `def parse(text, item)`, returning the answer taken from the \
student's reply (empty: the reply itself is the answer); it runs in a sandbox without \
files or network, and may not contain answers. It now reads:
```
<curr_param>
```
""" + _RESULTS + """Write a better parse hook for this student. Reply with the source \
alone inside one ``` block.""",
}


def search_scope(store: BuildRecords) -> str:
    """The scope of a build's GEPA scores: `gepaK` for build K."""
    return "gepa" + store.scope.split("/")[0]


def require_gepa() -> None:
    """ConfigError naming the extra when the `gepa` package is not installed."""
    try:
        import gepa  # noqa: F401
    except ImportError:
        raise ConfigError("the gepa comparator needs the gepa package, which is not installed",
                          hint=GEPA_EXTRA_HINT) from None


@dataclass(frozen=True)
class GepaMatch:
    """What the GEPA search may spend (see the module docstring)."""

    teacher_tokens: int
    metric_calls: int
    #: the probe and validation scorings of the build's own loop (what `matched` means)
    build_metric_calls: int = 0
    #: "matched" (metric_calls = the build's own) or "set" (the config's gepa_metric_calls)
    metric_calls_source: str = "matched"


def matched_budget(token_budget: int | None, store: BuildRecords,
                   sizes: Mapping[str, int]) -> GepaMatch:
    """The build's own spend: its token cap (else the tokens its loop's teacher calls
    used; the one-shot comparator's call is not the search's) and the probe and
    validation item scorings of its loop (the bare floor's included)."""
    spent = sum(int(c.get("input_tokens", 0)) + int(c.get("output_tokens", 0))
                for c in store.teacher_calls() if c.get("key") != "oneshot")
    rounds = store.rounds()
    probe, validation = int(sizes["probe"]), int(sizes["validation"])
    calls = probe + validation + sum(probe for r in rounds if r.get("probe") is not None) \
        + sum(validation for r in rounds if r.get("validation") is not None)
    return GepaMatch(teacher_tokens=token_budget or max(1, spent), metric_calls=calls,
                     build_metric_calls=calls)


class HarnessAdapter:
    """GEPA's adapter (`gepa.GEPAAdapter`): a candidate is a harness's prompt texts;
    `evaluate` scores the student with that harness on a batch of one split."""

    #: GEPA's own reflection proposes the texts (through `TeacherReflection`)
    propose_new_texts: ProposalFn | None = None

    def __init__(self, env: ScoringEnv, store: BuildRecords, variant: str = "prompt") -> None:
        self.env = env
        self.variant = variant
        # its candidates' scores are its own trials (scope gepaK), item by item, so a
        # minibatch never re-runs an item and the build's scores stay the build's
        self.scorer = env.scorer.within(search_scope(store))
        self.base = bare_harness(env.setting.name)
        self.split_of = {item.item_id: split for split, items in env.splits.items()
                         for item in items}
        self.verdicts: dict[str, list[str]] = {}

    def harness(self, candidate: Mapping[str, str]) -> tuple[Harness | None, list[str]]:
        """The bare harness with the variant's parts from `candidate` (gepa_variants.py),
        or None and why it is no harness."""
        return harness_of(self.base, candidate, self.variant)

    def broken(self, candidate: Mapping[str, str]) -> tuple[Harness | None, list[str]]:
        """The candidate's harness and its violations (none: it may be scored)."""
        harness, why = self.harness(candidate)
        return harness, why if harness is None else self.violations(harness)

    def violations(self, harness: Harness) -> list[str]:
        """The compile's admissibility checks, teacher-safe details (cached by hash)."""
        if harness.hash not in self.verdicts:
            report = check_harness(harness.document(), self.env.setting, seed=self.env.seed,
                                   sizes=self.env.sizes)
            self.verdicts[harness.hash] = [f"{v.check}: {v.detail}" for v in report.violations]
        return self.verdicts[harness.hash]

    def evaluate(self, batch: list[Item], candidate: dict[str, str],
                 capture_traces: bool = False) -> EvaluationBatch[Trace, str | None]:
        from gepa import EvaluationBatch

        splits = {self.split_of.get(item.item_id) for item in batch}
        if len(splits) != 1 or not splits <= {"probe", "validation"}:
            raise TetherError(f"GEPA asked to score items of {sorted(map(str, splits))}; "
                              "it may score probe or validation items only")
        split = str(splits.pop())
        harness, broken = self.broken(candidate)
        # GEPA pads a minibatch with repeats when the trainset does not divide evenly: each
        # item is scored once
        unique = list({item.item_id: item for item in batch}.values())
        scored: SplitScore | None = None if broken or harness is None else \
            self.scorer.score(harness, split, unique)
        outputs: list[str | None] = []
        scores: list[float] = []
        traces: list[Trace] = []
        for item in batch:
            outcome = scored.outcomes.get(item.item_id) if scored else None
            score = scored.scores.get(item.item_id) if scored else None
            outputs.append(outcome.get("answer") if outcome else None)
            scores.append(float(score) if score is not None else 0.0)
            traces.append({"item_id": item.item_id, "split": split, "outcome": outcome,
                           "score": score, "violations": broken})
        return EvaluationBatch(outputs=outputs, scores=scores,
                               trajectories=traces if capture_traces else None)

    def make_reflective_dataset(self, candidate: dict[str, str],
                                eval_batch: EvaluationBatch[Trace, str | None],
                                components_to_update: list[str]
                                ) -> dict[str, list[dict[str, Any]]]:
        records = [self._record(trace) for trace in eval_batch.trajectories or []]
        return {name: records for name in components_to_update}

    def _record(self, trace: Mapping[str, Any]) -> dict[str, Any]:
        if trace["split"] != "probe":  # only probe gold may reach the teacher
            raise TetherError(f"GEPA asked to reflect on a {trace['split']} item")
        item = next(i for i in self.env.splits["probe"] if i.item_id == trace["item_id"])
        golds = self.env.setting.gold(item)
        outcome, score = trace["outcome"], trace["score"]
        record: dict[str, Any] = {"Inputs": {"question": item.question}}
        if trace["violations"]:
            record["Generated Outputs"] = "(not run)"
            record["Feedback"] = ("The harness is inadmissible, so the student never ran: "
                                  + "; ".join(trace["violations"]))
            return record
        shown = trace_of(item, outcome, golds, score)
        last = shown["calls"][-1]["reply"] if shown["calls"] else ""
        record["Generated Outputs"] = {"student reply": last, "answer": outcome.get("answer")}
        if score is None:
            record["Feedback"] = ("Not scored: the student call failed "
                                  f"({outcome.get('error') or 'infrastructure error'}).")
        elif score >= 1.0:
            record["Feedback"] = "Correct (score 1.0)."
        else:
            record["Feedback"] = (f"Score {score:.2f}. Accepted answer(s): {', '.join(golds)}. "
                                  f"Where it failed: {_stage(outcome, golds)}"
                                  + (f"; error: {outcome['error']}" if outcome.get("error")
                                     else "") + ".")
        return record


class TeacherReflection:
    """GEPA's reflection model: one budgeted, recorded teacher call per reflection. A
    refused or failed call raises (GEPA skips that proposal); `exhausted` is the stop
    condition that ends the search after a refusal or repeated failures."""

    def __init__(self, teacher: TeacherClient) -> None:
        self.teacher = teacher
        self.calls = 0
        self.failures = 0

    def __call__(self, prompt: str | list[dict[str, Any]]) -> str:
        if self.teacher.stopped is not None:
            raise TetherError(self.teacher.stopped)
        self.calls += 1
        reply = self.teacher.call(f"gepa-{self.calls:03d}", _prompt_text(prompt))
        if reply.text is None:
            self.failures += self.teacher.stopped is None
            raise TetherError(reply.error or "the teacher call failed")
        self.failures = 0
        return reply.text

    def exhausted(self, gepa_state: Any = None) -> bool:
        return self.teacher.stopped is not None or self.failures >= MAX_TEACHER_FAILURES

    def stopped(self) -> str | None:
        if self.teacher.stopped is not None:
            return self.teacher.stopped
        if self.failures >= MAX_TEACHER_FAILURES:
            return f"{MAX_TEACHER_FAILURES} teacher calls in a row failed"
        return None


def _stage(outcome: Mapping[str, Any], golds: list[str]) -> str:
    stage = stage_of(dict(outcome), golds)
    return STAGES.get(stage, stage.replace("hook_error:", "the hook failed: "))


def _prompt_text(prompt: str | list[dict[str, Any]]) -> str:
    if isinstance(prompt, str):
        return prompt
    parts = [m.get("content") for m in prompt]
    return "\n\n".join(p if isinstance(p, str) else
                       " ".join(c.get("text", "") for c in p if isinstance(c, dict))
                       for p in parts if p)


class _Log:
    """GEPA's logger: kept for the arm's record instead of printed (stdout carries
    `--json`)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def log(self, message: str) -> None:
        self.lines.append(message)


def reflection_templates(env: ScoringEnv, seed: Mapping[str, str]) -> dict[str, str]:
    """GEPA's reflection prompt for each component of the seed candidate."""
    fields = ", ".join("{" + f + "}" for f in sorted(observation_fields(env.setting, {})))
    offered = json.dumps(resources_of(env.setting), sort_keys=True)
    templates = {name: REFLECTION_TEMPLATE.replace("FIELDS", fields) for name in seed}
    for name in (RESOURCES, OUTPUT, PARSE):
        if name in seed:
            templates[name] = PART_TEMPLATES[name].replace("OFFERED", offered)
    return templates


def run_gepa(env: ScoringEnv, store: BuildRecords, teacher: TeacherClient, match: GepaMatch, *,
             seed: int, variant: str = "prompt") -> dict[str, Any]:
    """Run the search (`seed`: GEPA's own sampling) over the parts `variant` names
    (gepa_variants.py) with `teacher` recording into `store` (the build's `gepa_store()`);
    its record, which the caller records as `gepa`."""
    require_gepa()
    import gepa

    adapter = HarnessAdapter(env, store, variant)
    reflection = TeacherReflection(teacher)
    start = bare_harness(env.setting.name)
    seed_candidate = candidate_of(start, variant)
    log = _Log()
    result: Any = gepa.optimize(
        seed_candidate=seed_candidate, trainset=env.splits["probe"],
        valset=env.splits["validation"], adapter=adapter, reflection_lm=reflection,
        reflection_prompt_template=reflection_templates(env, seed_candidate),
        reflection_minibatch_size=min(3, len(env.splits["probe"])),
        max_metric_calls=match.metric_calls, stop_callbacks=[reflection.exhausted],
        logger=log, run_dir=None, seed=seed, raise_on_exception=True,
        track_best_outputs=False, display_progress_bar=False)
    best = result.best_candidate
    assert isinstance(best, dict)  # a dict seed candidate gives dict candidates
    harness, violations = adapter.broken(best)
    calls = store.teacher_calls()
    return {"hash": harness and harness.hash,
            "document": harness and harness.document(),
            "admissible": harness is not None and not violations, "violations": violations,
            "is_seed": harness is not None and harness.hash == start.hash,
            "variant": variant, "searched": list(searched_parts(variant)),
            "validation": float(result.val_aggregate_scores[result.best_idx]),
            "seed_validation": float(result.val_aggregate_scores[0]),
            "candidates": result.num_candidates, "metric_calls": result.total_metric_calls,
            "budget": {"teacher_tokens": match.teacher_tokens,
                       "metric_calls": match.metric_calls,
                       "metric_calls_source": match.metric_calls_source,
                       "build_metric_calls": match.build_metric_calls},
            "teacher_tokens": teacher.tokens_used(), "teacher_calls": len(calls),
            "stopped": reflection.stopped() or _metric_stop(result, match),
            "log": log.lines[-_LOG_LINES:]}


def _metric_stop(result: Any, match: GepaMatch) -> str:
    return (f"metric calls: {result.total_metric_calls} of {match.metric_calls}"
            if (result.total_metric_calls or 0) >= match.metric_calls else "search ended")
