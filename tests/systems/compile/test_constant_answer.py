"""The constant-answer row, plain majority vote and the teacher's cost in a compile
report (issue 38 item 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.systems.compile.compiler import CompileConfig, Compiler
from tether.systems.compile.constant_answer import applies, constant_answer, constant_row
from tether.systems.compile.report import hc_numbers, write_hc_report
from tether.systems.compile.setting import Item, get_setting

STUDENT = "scripted:tether.testing.scripted_teacher:student"
TEACHER = "scripted:tether.testing.scripted_teacher:competent"
LABELS = ("positive", "negative", "neutral")


def _three_class(path: Path) -> str:
    """30 rows of a 3-class choice task: 14 positive, 9 negative, 7 neutral."""
    labels = [*["positive"] * 14, *["negative"] * 9, *["neutral"] * 7]
    path.write_text("".join(json.dumps({
        "id": f"rev{k:02d}", "question": f"Review {k}: is it good?", "choices": list(LABELS),
        "answer": label, "context": f"sentiment {label}"}) + "\n"
        for k, label in enumerate(labels)))
    return f"jsonl:{path};metric=choice"


def test_the_majority_class_of_the_gold_folded_ties_to_the_first() -> None:
    toy = get_setting("toy")
    items = toy.splits(0, {"probe": 4, "validation": 4, "test": 0})
    gold = [toy.gold(i)[0] for s in ("probe", "validation") for i in items[s]]
    answer = constant_answer(toy, [*items["probe"], *items["validation"]])
    assert answer is not None and gold.count(answer) == max(map(gold.count, gold))
    assert answer == next(g for g in gold if gold.count(g) == max(map(gold.count, gold)))


def test_a_row_scores_one_answer_on_every_item(tmp_path: Path) -> None:
    setting = get_setting(_three_class(tmp_path / "r.jsonl"))
    items: list[Item] = list(setting.items)  # type: ignore[attr-defined]
    assert applies(setting) and constant_answer(setting, items) == "positive"
    row = constant_row(setting, "positive", items)
    assert row["n"] == 30 and row["mean"] == pytest.approx(14 / 30)
    assert sum(row["scores"].values()) == 14
    assert constant_answer(setting, []) is None
    assert not applies(get_setting("docs"))  # ANLS: graded, no constant row


def test_the_compile_report_of_a_3_class_task_shows_the_constant_row(tmp_path: Path) -> None:
    spec = _three_class(tmp_path / "reviews.jsonl")
    config = CompileConfig(setting=spec, teacher=TEACHER + ";price_in=3;price_out=15",
                           student=STUDENT, probe=6, validation=6, test=18, rounds=1,
                           comparators=["cot_vote", "plain_vote"], out=str(tmp_path / "c"))
    result = Compiler(config).run()
    setting = get_setting(spec)
    splits = setting.splits(0, {"probe": 6, "validation": 6, "test": 18})
    seen = [setting.gold(i)[0] for s in ("probe", "validation") for i in splits[s]]
    majority = max(LABELS, key=seen.count)
    expected = sum(setting.gold(i)[0] == majority for i in splits["test"]) / 18
    constant = result["constant"]
    assert constant["answer"] == majority and constant["n"] == 18
    assert constant["test"] == pytest.approx(expected)
    assert result["plain_vote"]["test"] is not None  # scored beside cot_vote

    numbers = hc_numbers(tmp_path / "c")
    [row] = [a for a in numbers["builds"][0]["arms"] if a["arm"] == "constant"]
    assert row["mean"] == pytest.approx(expected) and row["vs_bare"]["n"] == 18
    path, _ = write_hc_report(tmp_path / "c", tmp_path / "hc.html")
    html = path.read_text()
    assert f"always <code>{majority}</code>" in html

    # the teacher's cost: its tokens at the spec's price, in dollars
    tokens_in = numbers["builds"][0]["teacher"]["input_tokens"]
    tokens_out = numbers["builds"][0]["teacher"]["output_tokens"]
    dollars = (tokens_in * 3 + tokens_out * 15) / 1e6
    assert tokens_in > 0 and result["teacher_cost"] == pytest.approx(dollars)
    assert numbers["builds"][0]["teacher"]["cost"] == pytest.approx(dollars)
    assert f"${dollars:.4f}" in html


def test_an_unpriced_teacher_costs_unknown_not_zero(tmp_path: Path) -> None:
    config = CompileConfig(setting="toy", teacher=TEACHER, student=STUDENT, probe=4,
                           validation=4, test=4, rounds=0, comparators=[],
                           out=str(tmp_path / "c"))
    result = Compiler(config).run()
    assert result["teacher_tokens"] > 0 and result["teacher_cost"] is None
    assert hc_numbers(tmp_path / "c")["builds"][0]["teacher"]["cost"] is None
