"""A compile's result, read from what it recorded alone (`tether compile --json`,
`tether report`, a resumed compile's summary): nothing here scores or calls a model, so
a finished or half-finished compile summarises the same way from any process, in a run
directory or in a build directory an earlier tether wrote (compiler/view.py)."""

from __future__ import annotations

from typing import Any

from tether.models import PriceBook
from tether.systems.compile.compiler.gate import small_gate_warning
from tether.systems.compile.compiler.view import BuildView, CompileView
from tether.systems.compile.harness import bare_harness

__all__ = ["ARMS", "ROUND_FIELDS", "build_summary", "constant_summary", "student_spend",
           "summarise", "teacher_cost", "teacher_failure"]

#: the test arms in report order (systems/compile/compiler/config.py: COMPARATORS)
ARMS = ("bare", "h0", "selected", "oneshot", "human_recipe", "student_routed", "cot_vote",
        "plain_vote", "gepa")
ROUND_FIELDS = ("round", "restart", "hash", "admissible", "violations", "probe",
                "validation", "infra_errors", "decision", "error")



def student_spend(dir_: CompileView) -> int | None:
    """Generated tokens of every student call the compile recorded (None: a build
    directory written before they were recorded)."""
    if not dir_.records_student_calls():
        return None
    return sum(int(r["usage"]["output_tokens"]) + int(r["usage"]["reasoning_tokens"])
               for r in dir_.student_calls())


def teacher_cost(calls: list[dict[str, Any]], teacher_spec: str | None) -> float | None:
    """Dollars of the teacher calls from the price on the teacher's spec
    (`;price_in=X;price_out=Y`, per million tokens; tether.models.pricing): None when
    a call's model has no known price, never 0. A call the budget refused was never
    made and a call that failed got no reply to bill (both hold 0 tokens); a call the
    cache answered made no request (0 dollars)."""
    book = PriceBook(specs=[teacher_spec] if teacher_spec else [])
    dollars = 0.0
    for call in calls:
        if call.get("refused"):
            continue
        price = book.price(str(call.get("model")))
        if price is None:
            return None
        if any(c.get("cache_hit") for c in call.get("calls") or []):
            continue
        dollars += price.cost(int(call.get("input_tokens", 0)), int(call.get("output_tokens", 0)))
    return dollars


def constant_summary(test: dict[str, Any] | None) -> dict[str, Any] | None:
    """The constant-answer row of a build's test record (constant_answer.py): its
    answer, test mean and item count; None where none was computed (a graded metric, a
    compile from before it existed)."""
    row = (test or {}).get("constant")
    if not row:
        return None
    return {"answer": row["answer"], "test": row["mean"], "n": row["n"],
            "source": row.get("source")}


def build_summary(dir_: CompileView, store: BuildView) -> dict[str, Any]:
    """One build's result (the `--json` shape)."""
    selected = store.selected() or {}
    test = (store.test() or {}).get("arms", {})
    rounds = store.rounds()
    bare_val = dir_.split_score("validation", bare_harness(_setting_of(selected)).hash) \
        if selected else None
    h0 = selected.get("h0") or {}
    oneshot = store.oneshot() or {}
    gepa = store.gepa() or {}

    def test_of(arm: str) -> float | None:
        row = test.get(arm)
        return row["mean"] if row else None

    def tokens_of(arm: str) -> float | None:
        row = test.get(arm)
        return row["tokens_per_item"] if row else None

    def infra_of(arm: str, validation_hash: str | None = None) -> dict[str, int | None]:
        """Items never scored (sandbox or endpoint failures), per split."""
        row = test.get(arm)
        val = dir_.split_score("validation", validation_hash) if validation_hash else None
        return {"validation": val.infra_errors if val else None,
                "test": int(row.get("infra_errors", 0)) if row else None}

    # a call the budget refused was never made: counted apart, never as a call
    calls = [c for c in store.teacher_calls() if not c.get("refused")]
    refusals = len(store.teacher_calls()) - len(calls)
    return {
        "selected_hash": selected.get("hash"),
        "selected_is_bare": selected.get("is_bare"),
        "protocol": selected.get("protocol"),
        # the shared-H0 mode: the build that wrote this build's H0 and the one that read it
        "shared_h0": selected.get("shared_h0"),
        "stopped": selected.get("stopped"),
        # why the student's budget left items unscored: in the rounds, else on test
        "student_stopped": selected.get("student_stopped")
        or (store.test() or {}).get("student_stopped"),
        "bare": {"validation": bare_val.known_mean if bare_val else None,
                 "test": test_of("bare"),
                 "tokens_per_item": tokens_of("bare"),
                 "infra_errors": infra_of("bare", bare_val.hash if bare_val else None)},
        # bare selected: its validation is the bare floor's, unknown when nothing scored
        "selected": {"validation": (bare_val.known_mean if bare_val else None)
                     if selected.get("is_bare") else selected.get("validation"),
                     "test": test_of("selected"),
                     "tokens_per_item": tokens_of("selected"),
                     "infra_errors": infra_of("selected", selected.get("hash"))},
        "h0": {"hash": h0.get("hash"), "validation": h0.get("validation"),
               "test": test_of("h0"), "tokens_per_item": tokens_of("h0"),
               "infra_errors": infra_of("h0", h0.get("hash"))},
        "oneshot": {"hash": oneshot.get("hash"), "admissible": oneshot.get("admissible"),
                    "test": test_of("oneshot"), "tokens_per_item": tokens_of("oneshot"),
                    "infra_errors": infra_of("oneshot")},
        **{arm: {"test": test_of(arm), "tokens_per_item": tokens_of(arm),
                 "infra_errors": infra_of(arm)}
           for arm in ("human_recipe", "student_routed", "cot_vote", "plain_vote")},
        "gepa": {"hash": gepa.get("hash"), "admissible": gepa.get("admissible"),
                 "validation": gepa.get("validation"), "test": test_of("gepa"),
                 "tokens_per_item": tokens_of("gepa"), "infra_errors": infra_of("gepa"),
                 # what it searched (gepa_variants.py); older records searched prompts
                 "variant": gepa.get("variant", "prompt") if gepa else None,
                 "teacher_tokens": gepa.get("teacher_tokens"),
                 "teacher_budget": (gepa.get("budget") or {}).get("teacher_tokens"),
                 "metric_calls": gepa.get("metric_calls"),
                 "metric_call_budget": (gepa.get("budget") or {}).get("metric_calls"),
                 "metric_call_budget_source": (gepa.get("budget") or {}).get(
                     "metric_calls_source", "matched"),
                 "build_metric_calls": (gepa.get("budget") or {}).get("build_metric_calls"),
                 "stopped": gepa.get("stopped"),
                 "test_audit": (store.test() or {}).get("gepa_audit", [])},
        "rounds": [{k: r.get(k) for k in ROUND_FIELDS} for r in rounds],
        "teacher_tokens": sum(int(c.get("input_tokens", 0)) + int(c.get("output_tokens", 0))
                              for c in calls),
        "teacher_calls": len(calls),
        "teacher_refusals": refusals,
        "teacher_cost": teacher_cost(store.teacher_calls(),
                                     (dir_.config() or {}).get("teacher")),
        "constant": constant_summary(store.test()),
        "test_audit": {"flagged": (store.test() or {}).get("flagged"),
                       "findings": (store.test() or {}).get("audit", [])},
    }


def teacher_failure(result: dict[str, Any]) -> str | None:
    """Why no teacher call of any build succeeded (the first call's error), or None when
    some call got a reply: a compile whose teacher never answered selected bare for no
    reason of the student's, and says so instead of reporting a result."""
    builds = result.get("builds") or [result]
    # a round the student's budget stopped had its teacher reply
    rounds = [(r, b.get("student_stopped")) for b in builds for r in b["rounds"]]
    if not rounds or any(r["decision"] != "error" or (stop and r.get("error") == stop)
                         for r, stop in rounds):
        return None
    return str(rounds[0][0].get("error") or "the teacher call failed")


def _setting_of(selected: dict[str, Any]) -> str:
    return str(selected["document"]["setting"])


def summarise(dir_: CompileView) -> dict[str, Any]:
    """The result of a directory: one build's summary, or the mean over several."""
    builds = [build_summary(dir_, dir_.build(k)) for k in dir_.build_indices()]
    # the student's spend is the directory's: its builds share the scores
    config = dir_.config() or {}
    warning = small_gate_warning(config.get("validation"))
    student = {"student_tokens": student_spend(dir_),
               "student_token_budget": config.get("student_token_budget"),
               "warnings": [warning] if warning else []}
    if len(builds) == 1:
        return {**builds[0], **student}
    out: dict[str, Any] = {"selected_hash": [b["selected_hash"] for b in builds],
                           "builds": builds, "rounds": [b["rounds"] for b in builds], **student}
    for arm in ARMS:
        out[arm] = _arm_means(builds, arm)
    if any(b.get("shared_h0") for b in builds):  # protocol AB: each protocol's own means
        out["by_protocol"] = {p: {arm: _arm_means(of, arm) for arm in ARMS}
                              for p in ("A", "B")
                              if (of := [b for b in builds if b.get("protocol") == p])}
    out["teacher_tokens"] = _mean([b["teacher_tokens"] for b in builds])
    costs = [b["teacher_cost"] for b in builds]  # every build's teacher, together
    out["teacher_cost"] = None if None in costs else sum(costs)
    out["constant"] = builds[0]["constant"]  # the builds share their splits
    return out


def _arm_means(builds: list[dict[str, Any]], arm: str) -> dict[str, float | None]:
    return {field: _mean([b[arm].get(field) for b in builds])
            for field in ("validation", "test", "tokens_per_item") if field in builds[0][arm]}


def _mean(values: list[Any]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None

