"""A trial whose strategy recorded `valid = false` is unscored: not a fail, not a 0."""

from __future__ import annotations

from tests.report.conftest import make_record
from tether.core.trial import TrialRecord
from tether.runs.summary import arm_rows


def _no_answer(index: int, extra: dict) -> TrialRecord:
    return make_record(index, f"t{index}", 0, "vetr", None, extra=extra)


def test_an_invalid_trial_has_no_score_and_no_verdict() -> None:
    invalid = _no_answer(0, {"valid": False, "invalid_reason": "no_render"})
    assert invalid.unscored and invalid.score is None and invalid.passed is None
    plain = _no_answer(1, {})  # no answer and no such declaration: a fail, as before
    assert not plain.unscored and plain.score == 0.0 and plain.passed is False


def test_the_summary_mean_leaves_invalid_trials_out() -> None:
    records = [_no_answer(0, {"valid": False}),
               make_record(1, "t1", 0, "vetr", None, passed=True, extra={"valid": True})]
    (row,) = arm_rows(records, {})
    assert row["trials"] == 2 and row["pass_rate"] == 1.0 and row["mean_score"] == 1.0


def test_the_run_table_counts_an_invalid_trial_apart_from_ok() -> None:
    from rich.console import Console

    from tether.runs.summary import arm_table

    records = [_no_answer(0, {"valid": False}), _no_answer(1, {"valid": False})]
    (row,) = arm_rows(records, {})
    assert row["ok"] == 0 and row["invalid"] == 2 and row["error"] == 0
    console = Console(width=200, record=True)
    console.print(arm_table([row], "t"))
    header, values = [line.split("┃" if "┃" in line else "│")
                      for line in console.export_text().splitlines() if "vetr" in line
                      or "invalid" in line][:2]
    cells = dict(zip([h.strip() for h in header], [v.strip() for v in values], strict=False))
    assert cells["ok"] == "0" and cells["invalid"] == "2" and cells["other end"] == "0"
    plain = arm_rows([make_record(1, "t1", 0, "vetr", None, passed=True)], {})
    quiet = Console(width=200, record=True)
    quiet.print(arm_table(plain, "t"))
    assert plain[0]["invalid"] == 0 and "invalid" not in quiet.export_text()  # no column
