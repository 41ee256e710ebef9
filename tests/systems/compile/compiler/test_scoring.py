"""Scoring items at the endpoint's concurrency: the same results as serial, resumable item
by item, in-process models one call at a time."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.systems.compile.compiler.conftest import recorded, toy_config, toy_run
from tether.systems.compile.compiler import Compiler
from tether.systems.compile.compiler.endpoint import StudentEndpoint
from tether.systems.compile.compiler.run import CompileRun
from tether.systems.compile.compiler.scoring import SplitScorer
from tether.systems.compile.compiler.trial import Scoring
from tether.systems.compile.harness import bare_harness
from tether.systems.compile.setting import get_setting
from tether.testing.scripted_models import ScriptedModel
from tether.testing.scripted_student import ScriptedStudent
from tether.testing.scripted_teacher import ScriptedTeacher


class Overlap:
    """TEST DOUBLE wrapper: the scripted student, taking a little time per call and
    counting how many calls were in flight at once."""

    def __init__(self, crash_after: int | None = None) -> None:
        self.student = ScriptedStudent({})
        self.lock = threading.Lock()
        self.now = self.most = self.calls = 0
        self.crash_after = crash_after

    def script(self, messages: list[dict[str, Any]], info: Any) -> str:
        with self.lock:
            self.calls += 1
            if self.crash_after is not None and self.calls > self.crash_after:
                raise KeyboardInterrupt("killed mid-split")
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            time.sleep(0.01)  # long enough for other items' calls to start
            return self.student.script(messages, info)
        finally:
            with self.lock:
                self.now -= 1


def student_model(double: Overlap, concurrency: int) -> ScriptedModel:
    model = ScriptedModel(double.script)
    model.concurrency = concurrency  # what a remote spec's ;concurrency=N sets
    return model


def compile_with(out: Path, concurrency: int) -> tuple[dict[str, Any], Overlap]:
    double = Overlap()
    teacher = ScriptedTeacher({"0": ["v1"], "1": "v2", "default": "noop"})
    config = toy_config(out, comparators=["h0", "student_routed", "cot_vote"])
    result = Compiler(config, teacher=ScriptedModel(teacher.script),
                      student=student_model(double, concurrency)).run()
    return result, double


def split_scores(out: Path) -> dict[str, Any]:
    return {f"{split}/{key}": score.to_json()
            for (split, key), score in sorted(recorded(out).scores.items())}


def test_concurrent_scoring_gives_the_serial_results(tmp_path: Path) -> None:
    serial, one = compile_with(tmp_path / "serial", 1)
    wide, eight = compile_with(tmp_path / "wide", 8)
    assert one.most == 1 and eight.most > 1
    assert one.calls == eight.calls
    assert wide == serial
    assert split_scores(tmp_path / "wide") == split_scores(tmp_path / "serial")


def test_a_killed_concurrent_split_resumes_item_by_item(tmp_path: Path) -> None:
    toy = get_setting("toy")
    items = toy.splits(0, {"probe": 12, "validation": 0, "test": 0})["probe"]
    harness = bare_harness("toy")
    crashing = Overlap(crash_after=5)
    run = toy_run(tmp_path, probe=12, validation=1, test=1)
    scorer = SplitScorer(toy, StudentEndpoint(student_model(crashing, 4)), run)
    with pytest.raises(KeyboardInterrupt):
        scorer.score(harness, "probe", items)
    kept = run.scored(Scoring.of_harness(harness, "probe", bare_hash=harness.hash))
    assert 1 <= len(kept) <= 5  # the items that finished were committed as they finished
    run.close()  # what the end of a killed process does
    rest = Overlap()
    reopened = CompileRun.reopen(tmp_path)
    again = SplitScorer(toy, StudentEndpoint(student_model(rest, 4)), reopened)
    resumed = again.score(harness, "probe", items)
    assert rest.calls == len(items) - len(kept)  # nothing scored twice
    fresh = SplitScorer(toy, StudentEndpoint(student_model(Overlap(), 1)),
                        toy_run(tmp_path / "fresh", probe=12, validation=1, test=1)
                        ).score(harness, "probe", items)
    assert resumed.to_json() == fresh.to_json()
    assert list(resumed.outcomes) == [i.item_id for i in items]


def test_in_process_models_are_scored_one_at_a_time() -> None:
    assert StudentEndpoint(ScriptedModel(["x"])).concurrency == 1
