"""The compile's student endpoint on the one charged call path: every call recorded with
its item (as it is made, and in the item's trial), a hard token cap that holds with items
in flight, a refusal a budget stop (not scored, not committed)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.systems.compile.compiler.conftest import toy_run
from tether.core.budget import BudgetSpec, Ledger
from tether.models import CertificateRefused
from tether.models.errors import TLS_HINT
from tether.systems.compile.compiler.endpoint import StudentEndpoint, StudentUnreachable
from tether.systems.compile.compiler.run import CompileRun
from tether.systems.compile.compiler.scoring import SplitScorer
from tether.systems.compile.compiler.trial import Scoring
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
    endpoint = StudentEndpoint(_model(ScriptedStudent({}).script, 1), record=rows.append)
    harness = bare_harness("toy")
    run = toy_run(tmp_path, probe=4, validation=1, test=1)
    result = SplitScorer(toy, endpoint, run).score(harness, "probe", items)
    assert len(rows) == len(items)
    assert [r["item_id"] for r in rows] == [i.item_id for i in items]
    for row in rows:
        assert row["role"] == "student" and row["split"] == "probe"
        assert row["key"] == harness.hash and len(row["request_hash"]) == 64
        assert row["params"]["max_tokens"] == MAX and row["params"]["seed"] == 0
        assert row["latency_s"] >= 0 and "messages" not in row  # the trial has the prompt
    assert _spend(rows) == endpoint.tokens_used() == result.output_tokens > 0
    # each item is a trial whose calls are the item's, with their messages
    trials = {t.extra["item_id"]: t for t in run.store.trials()}
    assert set(trials) == {i.item_id for i in items}
    for row in rows:
        (call,) = trials[row["item_id"]].calls
        assert call.request_hash == row["request_hash"] and call.messages
        assert trials[row["item_id"]].spec.models == {"student": str(run.config()["student"])}


def test_the_cap_holds_with_8_items_in_flight_and_refused_items_are_budget_stops(
        tmp_path: Path) -> None:
    toy = get_setting("toy")
    items = toy.splits(0, {"probe": 12, "validation": 0, "test": 0})["probe"]
    cap = 5 * MAX + MAX // 2  # five whole calls fit, the sixth does not
    double, rows = Verbose(), []
    endpoint = StudentEndpoint(_model(double.script, 8), ledger=Ledger(BudgetSpec(total=cap)),
                               record=rows.append)
    run = toy_run(tmp_path, probe=12, validation=1, test=1)
    harness = bare_harness("toy")
    result = SplitScorer(toy, endpoint, run).score(harness, "probe", items)
    assert double.most > 1  # the items really ran at once
    assert double.calls == len(rows) == 5 and _spend(rows) == 5 * MAX <= cap
    assert len(result.scores) == 5 and len(result.budget) == 7
    assert result.stopped == endpoint.stopped
    assert f"student token budget of {cap} reached" in (result.stopped or "")
    assert all(result.outcomes[i]["status"] == "budget_stop" for i in result.budget)
    assert result.infra_errors == 0  # a refusal is no failure of the student's or the API's
    assert result.tokens_per_item == MAX  # over the items that ran
    # a budget stop is not the item's result: the split is incomplete, a resume asks again
    assert run.split_score("probe", harness.hash) is None
    scoring = Scoring.of_harness(harness, "probe", bare_hash=harness.hash)
    assert len(run.scored(scoring)) == 5 == len(run.store.trials())
    run.close()
    again = StudentEndpoint(_model(double.script, 8), ledger=Ledger(BudgetSpec(total=cap)))
    again.ledger.settle("student", 0, endpoint.ledger.spent["student"])  # what was spent
    resumed = SplitScorer(toy, again, CompileRun.reopen(tmp_path)).score(harness, "probe",
                                                                          items)
    assert double.calls == 5 and resumed.budget.keys() == result.budget.keys()


class _SlowSettling(Ledger):
    """A ledger whose settlement of each call waits (5 s at most) until a second call
    has reached the model: whether it did says what the endpoint's slot covers."""

    def __init__(self, second_call: threading.Event) -> None:
        super().__init__(BudgetSpec())
        self.second_call = second_call
        self.waited: list[bool] = []

    def settle(self, role: str, reserved: int, usage: Any) -> None:
        self.waited.append(self.second_call.wait(timeout=5))
        super().settle(role, reserved, usage)


def test_a_call_holds_the_endpoint_only_while_the_model_answers_it() -> None:
    """At concurrency 1 the next call reaches the model while the one before is still
    recorded and settled: the slot covers the request and its reply, not the ledger's
    and the record's work around them (a convoy of that work made every wave of calls
    late)."""
    second_call = threading.Event()

    def script(messages: list[dict[str, Any]], info: CallInfo) -> str:
        if info.call_number >= 1:  # numbered from 0
            second_call.set()
        return "an answer"

    ledger = _SlowSettling(second_call)
    endpoint = StudentEndpoint(_model(script, 1), ledger=ledger)

    def ask(i: int) -> None:
        student = endpoint.session(max_tokens=8, temperature=0.0, modality="text",
                                   where={"split": "probe", "item_id": str(i)}, log=[])
        student(f"question {i}", None)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert ledger.waited == [True, True]


def test_a_refused_certificate_stops_the_compile_with_what_to_change() -> None:
    def script(messages: list[dict[str, Any]], info: CallInfo) -> str:
        raise CertificateRefused("m@https://h/v1: the TLS certificate of https://h/v1 was "
                                 "refused: self-signed certificate")

    endpoint = StudentEndpoint(_model(script, 1), resume="tether compile --resume out")
    student = endpoint.session(max_tokens=8, temperature=0.0, modality="text",
                               where={"split": "probe", "item_id": "0"}, log=[])
    with pytest.raises(StudentUnreachable) as caught:
        student("question", None)
    assert "self-signed certificate" in str(caught.value)
    # not "start the student's server": the server is there, its certificate is not trusted
    assert caught.value.hint == (f"{TLS_HINT}, then continue where this stopped: tether "
                                 "compile --resume out (the items answered so far are kept)")
