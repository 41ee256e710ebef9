"""One pool of student calls per phase of the freeze (compiler/pool.py): probe and
validation together before the selection, every test arm together after it."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.systems.compile.compiler.conftest import toy_config
from tether.systems.compile.compiler import Compiler
from tether.systems.compile.compiler.pool import Job, score_jobs
from tether.systems.compile.compiler.scoring import ScoredItem
from tether.systems.compile.compiler.trial import Scoring
from tether.systems.compile.settings.toy import ToySetting
from tether.testing.scripted_models import ScriptedModel
from tether.testing.scripted_student import ScriptedStudent
from tether.testing.scripted_teacher import ScriptedTeacher


def _wide_student(width: int, script: Any = None) -> ScriptedModel:
    """The scripted student as an endpoint that takes `width` calls at once."""
    model = ScriptedModel(script or ScriptedStudent({}).script)
    model.concurrency = width  # what remote specs set
    return model


def _events(out: Path) -> list[tuple[int, str, str]]:
    """(seq, kind, key) of every event, in the order the store recorded them."""
    with sqlite3.connect(out / "run.sqlite") as db:
        return list(db.execute("SELECT seq, kind, key FROM events ORDER BY seq"))


def test_the_freeze_holds_under_the_pool(tmp_path: Path) -> None:
    teacher = ScriptedTeacher({"0": "v1", "1": "v2", "default": "noop", "oneshot": "v1"})
    Compiler(toy_config(tmp_path), teacher=ScriptedModel(teacher.script),
             student=_wide_student(4)).run()
    events = _events(tmp_path)
    [selected] = [seq for seq, kind, _ in events if kind == "selected"]
    test_calls = [(seq, key) for seq, kind, key in events
                  if kind == "student_call" and key.startswith("test/")]
    # every test arm's calls (bare, the selection, H0, one-shot, the baselines) were in
    # the pool, and each was made after the selection was recorded
    assert len({key.split("/")[1] for _, key in test_calls}) >= 4
    assert all(seq > selected for seq, _ in test_calls)
    others = [seq for seq, kind, key in events
              if kind == "student_call" and not key.startswith("test/")]
    assert others and max(others) < selected
    with sqlite3.connect(tmp_path / "run.sqlite") as db:
        # trials in commit order (rowid): no test item before the last probe/validation one
        splits = [row[0] for row in db.execute(
            "SELECT json_extract(record, '$.extra.split') FROM trials ORDER BY rowid")]
    assert "test" in splits and "test" not in splits[:splits.index("test")]
    assert set(splits[splits.index("test"):]) == {"test"}


def test_probe_and_validation_items_share_one_pool(tmp_path: Path) -> None:
    """Probe has 3 items and the endpoint takes 4 calls: the first wave of 4 can only
    fill with a validation item beside the probe ones (a split-by-split scorer leaves
    it at 3, and the barrier breaks)."""
    first_wave = threading.Barrier(4, timeout=30)
    seen: list[str] = []
    student = ScriptedStudent({}).script

    def script(messages: list[dict[str, Any]], info: Any) -> str:
        with lock:
            seen.append(str(messages[-1]["content"]))
            first = len(seen) <= 4
        if first:
            first_wave.wait()  # BrokenBarrierError (an infra error) when not pooled
        return student(messages, info)

    lock = threading.Lock()
    compiler = Compiler(toy_config(tmp_path, probe=3, validation=6, test=4, rounds=0,
                                   restarts=0, comparators=[]),
                        teacher=ScriptedModel(ScriptedTeacher({"0": "unparseable"}).script),
                        student=_wide_student(4, script))
    result = compiler.run()
    assert not first_wave.broken
    assert result["bare"]["validation"] is not None and result["bare"]["test"] is not None
    with sqlite3.connect(tmp_path / "run.sqlite") as db:
        statuses = {row[0] for row in db.execute(
            "SELECT json_extract(record, '$.status') FROM trials")}
    assert statuses == {"ok"}


def _job(key: str, items: list, scorer: Any, after: int | None = None) -> Job:
    @contextmanager
    def runner() -> Any:
        yield scorer

    return Job(Scoring.of_baseline(key, key, "validation"), items, runner, key, after)


def test_jobs_of_the_same_scores_are_scored_once_and_an_after_job_waits_for_a_clean_one(
        ) -> None:
    items = ToySetting().splits(0, {"probe": 0, "validation": 3, "test": 0})["validation"]
    asked: list[tuple[str, str]] = []

    def scorer(key: str, stop: bool = False) -> Any:
        def score(item: Any) -> ScoredItem:
            asked.append((key, item.item_id))
            row = {"item_id": item.item_id, "score": 1.0, "tokens": 1,
                   "outcome": {"status": "answered"}}
            if stop:
                row["budget"] = "spent"
            return ScoredItem(row, [])
        return score

    committed: list[tuple[str, str]] = []
    rows = score_jobs(
        [_job("a", items, scorer("a")), _job("a", items, scorer("a-again")),
         _job("b", items, scorer("b", stop=True)), _job("c", items, scorer("c"), after=2),
         _job("d", items, scorer("d"), after=0)],
        width=1, scored=lambda scoring: {},
        commit=lambda scoring, item, scored: committed.append((scoring.key, item.item_id)))
    ids = [i.item_id for i in items]
    assert [k for k, _ in asked] == ["a"] * 3 + ["b"] * 3 + ["d"] * 3  # c never asked
    assert rows[0] is rows[1] and list(rows[0]) == ids
    assert rows[3] == {} and list(rows[4]) == ids
    assert ("b", ids[0]) not in committed and len(committed) == 6  # a budget stop is no result


def test_items_are_prepared_ahead_of_their_calls_and_never_too_far_ahead() -> None:
    items = ToySetting().splits(0, {"probe": 0, "validation": 6, "test": 0})["validation"]
    ids = [i.item_id for i in items]
    lock = threading.Lock()
    prepared: list[str] = []
    started: list[str] = []
    ahead: list[int] = []  # items prepared past those started, at each preparation
    ready = {i: threading.Event() for i in ids}

    def prepare(item: Any) -> None:
        with lock:
            prepared.append(item.item_id)
            ahead.append(len(prepared) - len(started))
        ready[item.item_id].set()
        if item.item_id == ids[2]:
            raise OSError("cannot draw")  # left for the item's own scoring to meet

    def score(item: Any) -> ScoredItem:
        with lock:
            started.append(item.item_id)
        # the scorer waits for its input: preparing reaches every started item
        assert ready[item.item_id].wait(10)
        return ScoredItem({"item_id": item.item_id, "score": 1.0, "tokens": 1,
                           "outcome": {"status": "answered"}}, [])

    for width in (1, 3):
        for found in (prepared, started, ahead):
            found.clear()
        for event in ready.values():
            event.clear()
        [rows] = score_jobs([_job("a", items, score)], width=width, scored=lambda s: {},
                            commit=lambda scoring, item, scored: None, prepare=prepare)
        # each item prepared once, in the pool's order; a failure there ends nothing
        assert prepared == ids and sorted(started) == sorted(rows) == sorted(ids)
        assert max(ahead) <= width  # never more than `width` items past those started


def test_a_compile_starts_its_items_inputs_in_call_order_and_at_most_early_items(
        monkeypatch) -> None:
    import time

    from tether.systems.compile.compiler import pool

    monkeypatch.setattr(pool, "EARLY_ITEMS", 5)
    splits = ToySetting().splits(0, {"probe": 2, "validation": 2, "test": 3})
    asked: list[str] = []

    class Drawing:
        def prepare(self, item: Any) -> None:
            asked.append(item.item_id)
            if len(asked) == 2:
                raise OSError("no font")  # left for the item's own scoring

    pool.draw_ahead(Drawing(), splits)
    deadline = time.monotonic() + 10
    while len(asked) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    in_order = [i.item_id for split in ("probe", "validation", "test") for i in splits[split]]
    assert asked == in_order[:5]
    pool.draw_ahead(ToySetting(), splits)  # a setting without `prepare`: nothing to do


def test_images_are_drawn_from_the_start_only_for_a_student_known_to_take_them() -> None:
    from tether.systems.compile.student import shown_images

    remote = "openai-compatible/m@http://127.0.0.1:9/v1"
    assert shown_images(None, remote, "auto")
    assert not shown_images(None, remote, "text")
    assert shown_images(None, "scripted:[\"a\"]", "image")
    assert not shown_images(None, "scripted:[\"a\"]", "auto")  # only the built one knows
    assert shown_images(ScriptedModel(["a"], accepts_images=True), "scripted:x", "auto")


def test_more_items_run_than_calls_yet_calls_never_exceed_the_endpoint(
        tmp_path: Path) -> None:
    """Items are scored twice as wide as the endpoint's limit (an item committing never
    holds a call back); the calls in flight stay within the limit whatever the model
    does about it itself (the scripted one enforces nothing)."""
    import time

    lock = threading.Lock()
    in_flight, most = [0], [0]
    student = ScriptedStudent({}).script

    def script(messages: list[dict[str, Any]], info: Any) -> str:
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        time.sleep(0.02)
        with lock:
            in_flight[0] -= 1
        return student(messages, info)

    compiler = Compiler(toy_config(tmp_path, probe=6, validation=6, test=6, rounds=0,
                                   restarts=0, comparators=[]),
                        teacher=ScriptedModel(ScriptedTeacher({"0": "unparseable"}).script),
                        student=_wide_student(3, script))
    result = compiler.run()
    assert result["bare"]["test"] is not None
    assert most[0] == 3  # the width used, never passed
