"""Probe evidence: stages, stratified traces, pick precision and abstention."""

from __future__ import annotations

from tether.systems.compile.compiler.evidence import (
    MAX_TRACES,
    paired_traces,
    probe_report,
    stage_of,
)
from tether.systems.compile.compiler.scoring import SplitScore
from tether.systems.compile.setting import Item
from tether.systems.compile.settings.toy import ToySetting


def _call(prompt: str, reply: str) -> dict[str, str]:
    return {"prompt": prompt, "reply": reply}


def test_each_failure_gets_the_stage_that_explains_it() -> None:
    gold = ["Paris"]
    assert stage_of({"status": "hook_error", "error": "route: raised (ValueError)"},
                    gold) == "hook_error:route"
    assert stage_of({"status": "abstain"}, gold) == "abstain"
    assert stage_of({"status": "verdict", "answer": "Rome"}, gold) == "verdict"
    assert stage_of({"status": "answered", "step_limit": True, "calls": []}, gold) == "routing"
    assert stage_of({"status": "answered", "calls": [_call("answer", "Answer: Paris.")],
                     "shown": ["Q"]}, gold) == "parse"
    assert stage_of({"status": "answered", "calls": [_call("answer", "Lyon")],
                     "shown": ["Fact: Paris"]}, gold) == "read"
    assert stage_of({"status": "answered", "calls": [_call("pick", "2"), _call("answer", "x")],
                     "shown": ["1. A 2. B", "card B"]}, gold) == "pick"
    assert stage_of({"status": "answered", "calls": [_call("answer", "x")],
                     "shown": ["What is it?"]}, gold) == "evidence"


def _items(n: int) -> list[Item]:
    return [Item(f"i{k}", f"q{k}", {"answer": f"a{k}", "kind": "sum"}) for k in range(n)]


def test_report_is_stratified_and_capped() -> None:
    items = _items(80)
    score = SplitScore("h", "probe")
    for k, item in enumerate(items):
        if k < 40:  # evidence failures
            outcome = {"status": "answered", "calls": [_call("answer", "no")], "shown": ["q"]}
        elif k < 45:  # hook errors: a rarer stage still gets its traces
            outcome = {"status": "hook_error", "error": "parse: raised", "calls": []}
        else:  # right
            outcome = {"status": "answered", "answer": f"a{k}",
                       "calls": [_call("answer", f"a{k}")], "shown": ["q"]}
        score.outcomes[item.item_id] = outcome
        score.scores[item.item_id] = 1.0 if k >= 45 else 0.0
    report = probe_report(ToySetting(), items, score)
    assert report["stages"] == {"evidence": 40, "hook_error:parse": 5}
    assert len(report["failures"]) == MAX_TRACES
    stages = [f["stage"] for f in report["failures"]]
    assert stages.count("hook_error:parse") == 5
    assert report["score"] == 35 / 80 and report["pick_precision"] is None


def test_pick_precision_and_abstention() -> None:
    items = _items(4)
    score = SplitScore("h", "probe")
    rows = [("answered", 1.0), ("answered", 0.0), ("answered", 1.0), ("abstain", 0.0)]
    for item, (status, value) in zip(items, rows, strict=True):
        score.outcomes[item.item_id] = {"status": status, "answer": "",
                                        "calls": [_call("pick", "1"), _call("answer", "")]}
        score.scores[item.item_id] = value
    report = probe_report(ToySetting(), items, score)
    assert report["pick_precision"] == 2 / 3
    assert report["abstention_rate"] == 1 / 4


def test_paired_traces_count_wins_and_losses() -> None:
    items = _items(3)
    before, after = SplitScore("a", "probe"), SplitScore("b", "probe")
    for item, (x, y) in zip(items, [(0.0, 1.0), (1.0, 0.0), (1.0, 1.0)], strict=True):
        before.scores[item.item_id], after.scores[item.item_id] = x, y
        before.outcomes[item.item_id] = after.outcomes[item.item_id] = {"answer": "z"}
    paired = paired_traces(ToySetting(), items, before, after)
    assert (paired["won"], paired["lost"], len(paired["pairs"])) == (1, 1, 2)


def test_gold_is_matched_as_a_whole_word() -> None:
    outcome = {"status": "answered", "calls": [_call("answer", "I do not know")],
               "shown": ["Question: is it?"]}
    assert stage_of(outcome, ["no"]) == "evidence"
    outcome["calls"] = [_call("answer", "Answer: no.")]
    assert stage_of(outcome, ["no"]) == "parse"
