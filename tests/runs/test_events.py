"""A run's recorded events: kept in the store and in `events.jsonl`, read back in order,
taken back from the log into a store that lost them, absent from runs that have none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.runs import COMMAND_META, EVENTS_LOG, RunEvents, RunStore, reopen


def test_events_are_read_back_latest_per_key_and_in_order(tmp_path: Path) -> None:
    with RunStore(tmp_path, create=True) as store:
        events = RunEvents(store)
        events.record("round", "0/000", {"decision": "accept"})
        events.record("round", "0/001", {"decision": "tie"})
        events.record("round", "0/000", {"decision": "reject"})  # recorded again
        events.record("teacher_call", "0/r01", {"input_tokens": 3})
        latest = events.latest("round", "0/000")
        assert latest is not None and latest.row() == {"decision": "reject"}
        assert events.latest("round", "0/009") is None
        assert [(e.key, e.row()["decision"]) for e in events.of_kind("round")] == [
            ("0/000", "accept"), ("0/001", "tie"), ("0/000", "reject")]
    lines = [json.loads(line) for line in (tmp_path / EVENTS_LOG).read_text().splitlines()]
    assert [(ln["kind"], ln["key"], ln["row"]) for ln in lines] == [
        ("round", "0/000", {"decision": "accept"}), ("round", "0/001", {"decision": "tie"}),
        ("round", "0/000", {"decision": "reject"}), ("teacher_call", "0/r01",
                                                     {"input_tokens": 3})]
    assert len({ln["id"] for ln in lines}) == 4
    with RunStore.open(tmp_path, readonly=True) as store:  # a reader sees the same
        assert [e.row() for e in RunEvents(store).of_kind("teacher_call")] == [
            {"input_tokens": 3}]


def test_a_store_that_lost_its_events_takes_them_back_from_the_log(tmp_path: Path) -> None:
    with RunStore(tmp_path, create=True) as store:
        store.write_config({"name": "x"})
        for i in range(3):
            RunEvents(store).record("step", str(i), {"i": i})
    with (tmp_path / EVENTS_LOG).open("ab") as fh:
        fh.write(b'{"id": "cut", "kind": "st')  # a kill in the middle of a line
    for path in tmp_path.glob("run.sqlite*"):
        path.unlink()
    reopened = reopen(tmp_path)
    with reopened.store as store:
        assert reopened.events_restored == 3
        assert [e.row()["i"] for e in RunEvents(store).of_kind("step")] == [0, 1, 2]
        assert RunEvents(store).restore() == (0, 1)  # nothing new; the cut line skipped
    with RunStore.open(tmp_path, readonly=True) as store:
        assert len(RunEvents(store).of_kind("step")) == 3  # each once


def test_a_run_with_no_events_reads_as_none(tmp_path: Path) -> None:
    with RunStore(tmp_path, create=True):
        pass
    with RunStore.open(tmp_path, readonly=True) as store:
        assert RunEvents(store).of_kind("anything") == []
        assert RunEvents(store).latest("anything", "") is None


def test_tether_run_leaves_another_command_s_directory_to_it(tmp_path: Path) -> None:
    with RunStore(tmp_path, create=True) as store:
        store.write_config({"setting": "toy"})
        store.set_meta(COMMAND_META, "compile")
    result = CliRunner().invoke(main, ["run", "--resume", str(tmp_path)])
    assert result.exit_code == 2
    errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error:")]
    assert errors == [f"error: {tmp_path} was written by `tether compile`"], result.stderr
    assert f"tether compile --resume {tmp_path}" in result.stderr


@pytest.mark.parametrize("row", [{"a": 1}, [1, 2], "text", None])
def test_any_json_row_round_trips(tmp_path: Path, row: object) -> None:
    with RunStore(tmp_path, create=True) as store:
        RunEvents(store).record("k", "", row)
        found = RunEvents(store).latest("k", "")
        assert found is not None and found.row() == row
