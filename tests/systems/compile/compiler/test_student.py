"""The compile's student on the one charged call path: every call recorded with its item,
a hard token cap that holds with items in flight, a refusal a budget stop (not scored)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from tether.core.budget import BudgetSpec, Ledger
from tether.systems.compile.compiler.scoring import SplitScorer
from tether.systems.compile.compiler.store import BuildDir
from tether.systems.compile.compiler.student import ModelStudent
from tether.systems.compile.harness import bare_harness
from tether.systems.compile.setting import get_setting
from tether.testing.scripted_models import CallInfo, ScriptedModel
from tether.testing.scripted_student import ScriptedStudent

#: the bare harness's max_tokens: every call reserves all of it
MAX = bare_harness("toy").decode.max_tokens


class Verbose:
    """TEST DOUBLE: spends every token a call may (max_tokens words), slowly, counting
    the calls in flight at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.most = self.calls = 0

    def script(self, messages: list[dict[str, Any]], info: CallInfo) -> str:
        with self.lock:
            self.calls += 1
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(0.02)  # long enough for the other items' calls to start
        with self.lock:
            self.now -= 1
        return " ".join(["word"] * info.params.max_tokens)


def _model(script: Any, concurrency: int) -> ScriptedModel:
    model = ScriptedModel(script)
    model.concurrency = concurrency  # what a remote spec's ;concurrency=N sets
    return model


def _spend(rows: list[dict[str, Any]]) -> int:
    return sum(r["usage"]["output_tokens"] + r["usage"]["reasoning_tokens"] for r in rows)


def test_every_call_is_recorded_with_its_item(tmp_path: Path) -> None:
    toy = get_setting("toy")
    items = toy.splits(0, {"probe": 4, "validation": 0, "test": 0})["probe"]
    rows: list[dict[str, Any]] = []
    student = ModelStudent(_model(ScriptedStudent({}).script, 1), sink=rows.append)
    harness = bare_harness("toy")
    SplitScorer(toy, student, BuildDir(tmp_path)).score(harness, "probe", items)
    assert len(rows) == student.calls == len(items)
    assert [r["item_id"] for r in rows] == [i.item_id for i in items]
    for row in rows:
        assert row["role"] == "student" and row["split"] == "probe"
        assert row["key"] == harness.hash and len(row["request_hash"]) == 64
        assert row["params"]["max_tokens"] == MAX and row["params"]["seed"] == 0
        assert row["latency_s"] >= 0 and "messages" not in row  # the outcome has the prompt
    assert _spend(rows) == student.tokens_used() == student.output_tokens > 0


def test_the_cap_holds_with_8_items_in_flight_and_refused_items_are_budget_stops(
        tmp_path: Path) -> None:
    toy = get_setting("toy")
    items = toy.splits(0, {"probe": 12, "validation": 0, "test": 0})["probe"]
    cap = 5 * MAX + MAX // 2  # five whole calls fit, the sixth does not
    double, rows = Verbose(), []
    student = ModelStudent(_model(double.script, 8), ledger=Ledger(BudgetSpec(total=cap)),
                           sink=rows.append)
    store = BuildDir(tmp_path)
    harness = bare_harness("toy")
    result = SplitScorer(toy, student, store).score(harness, "probe", items)
    assert double.most > 1  # the items really ran at once
    assert double.calls == len(rows) == 5 and _spend(rows) == 5 * MAX <= cap
    assert len(result.scores) == 5 and len(result.budget) == 7
    assert result.stopped == student.stopped
    assert f"student token budget of {cap} reached" in (result.stopped or "")
    assert all(result.outcomes[i]["status"] == "budget_stop" for i in result.budget)
    assert result.infra_errors == 0  # a refusal is no failure of the student's or the API's
    assert result.tokens_per_item == MAX  # over the items that ran
    # a budget stop is not the item's result: nothing final is written, a resume asks again
    assert store.split_score("probe", harness.hash) is None
    assert len(store.partial_items("probe", harness.hash)) == 5
    again = ModelStudent(_model(double.script, 8), ledger=Ledger(BudgetSpec(total=cap)))
    again.ledger.settle("student", 0, student.ledger.spent["student"])  # what was spent
    resumed = SplitScorer(toy, again, store).score(harness, "probe", items)
    assert double.calls == 5 and resumed.budget.keys() == result.budget.keys()
