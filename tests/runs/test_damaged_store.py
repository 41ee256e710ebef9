"""A run store that is empty, damaged or lost: refused in one line, never rewritten,
and rebuilt by `--resume` from `trials.jsonl` (the append-only second copy).

Each test builds a real scripted run with `tether run`, then damages it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.core.trial import TrialRecord
from tether.runs.launch import RunRequest, execute, prepare
from tether.runs.rebuild import read_log
from tether.runs.store import RunStore

from .conftest import fingerprint
from .test_cli import one_line_error


def invoke(*args: str):
    # exceptions are caught: a traceback in the output is what these tests look for
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def run_dir(experiment: Path, tmp_path: Path) -> Path:
    """A finished 6-trial scripted run, its WAL checkpointed (as after any clean end)."""
    out = tmp_path / "run"
    res = invoke("run", str(experiment), "--out", str(out), "--json")
    assert res.exit_code == 0, res.output
    assert not (out / "run.sqlite-wal").exists()
    return out


def _state(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def _truncate(db: Path) -> None:
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])


def _overwrite(db: Path) -> None:
    data = bytearray(db.read_bytes())
    data[4096:-4096] = b"\xff" * (len(data) - 8192)
    db.write_bytes(bytes(data))


# --- item 9: read-only commands never write --------------------------------------------


def test_report_never_changes_the_store(run_dir: Path) -> None:
    db = run_dir / "run.sqlite"
    before = _state(db)
    assert invoke("report", str(run_dir), "--json").exit_code == 0
    assert _state(db) == before


def test_report_refuses_an_empty_store_without_writing_it(run_dir: Path) -> None:
    db = run_dir / "run.sqlite"
    db.write_bytes(b"")
    before = _state(db)
    one_line_error(invoke("report", str(run_dir)), "run.sqlite is empty")
    assert _state(db) == before


def test_report_refuses_a_schema_less_store_without_writing_it(tmp_path: Path) -> None:
    db = tmp_path / "run.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE other (x)")
    con.close()
    before = _state(db)
    one_line_error(invoke("report", str(tmp_path)), "not a run store")
    assert _state(db) == before
    empty = tmp_path / "empty"
    empty.mkdir()
    con = sqlite3.connect(empty / "run.sqlite", isolation_level=None)
    con.execute("PRAGMA user_version = 1")  # a valid SQLite file (a header), no tables
    con.close()
    before = _state(empty / "run.sqlite")
    one_line_error(invoke("report", str(empty)), "holds no run store")
    assert _state(empty / "run.sqlite") == before


def test_a_read_only_store_cannot_be_written(run_dir: Path) -> None:
    with RunStore.open(run_dir, readonly=True) as store:
        assert len(store.trials()) == 6
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store.set_meta("x", 1)


# --- item 8: a damaged store is one line and exit 2 -----------------------------------


@pytest.mark.parametrize("damage", [_truncate, _overwrite])
def test_damaged_store_is_one_line_for_every_command(run_dir: Path, damage) -> None:
    db = run_dir / "run.sqlite"
    damage(db)
    before = _state(db)
    one_line_error(invoke("report", str(run_dir)), "damaged")
    one_line_error(invoke("run", "--resume", str(run_dir)), "damaged")
    one_line_error(invoke("rescore", str(run_dir), "--metric", "scripted_check",
                          "--out", str(run_dir.parent / "rescored")), "damaged")
    assert _state(db) == before  # refused, never repaired by overwriting


def test_damaged_store_hint_leads_to_a_rebuild(run_dir: Path) -> None:
    reference = fingerprint(run_dir)
    db = run_dir / "run.sqlite"
    _overwrite(db)
    res = invoke("run", "--resume", str(run_dir))
    assert "move run.sqlite aside" in res.output and "trials.jsonl" in res.output
    db.rename(run_dir / "run.sqlite.damaged")
    res = invoke("run", "--resume", str(run_dir), "--json")
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    assert body["ran_now"] == 0 and body["restored_from_log"] == 6
    assert fingerprint(run_dir) == reference


# --- item 10: resume rebuilds from trials.jsonl; the log is only appended to ----------


def test_resume_rebuilds_an_emptied_store_from_the_log(run_dir: Path) -> None:
    reference = fingerprint(run_dir)
    log = run_dir / "trials.jsonl"
    log_before = log.read_bytes()
    (run_dir / "run.sqlite").write_bytes(b"")
    res = invoke("run", "--resume", str(run_dir), "--json")
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    assert body["ran_now"] == 0 and body["skipped"] == 6 and body["restored_from_log"] == 6
    assert "restored 6 finished trial(s)" in res.output
    assert fingerprint(run_dir) == reference
    assert log.read_bytes() == log_before
    assert invoke("report", str(run_dir), "--json").exit_code == 0


def test_interrupted_resume_of_an_emptied_store_never_truncates_the_log(run_dir: Path) -> None:
    # The reported loss: the store emptied, the log holding the finished trials, a resume
    # interrupted after one trial. Here the log holds 4 of 6 trials, so 2 are left to run.
    log = run_dir / "trials.jsonl"
    kept = log.read_bytes().splitlines(keepends=True)[:4]
    log.write_bytes(b"".join(kept))
    (run_dir / "run.sqlite").write_bytes(b"")
    run = prepare(RunRequest(resume=str(run_dir)))
    assert len(run.todo) == 2 and run.restored == 4
    stop = threading.Event()
    result = execute(run, stop=stop, on_commit=lambda _r: stop.set())
    run.store.close()
    assert result.interrupted and result.committed_now == 1
    lines = log.read_bytes().splitlines(keepends=True)
    assert lines[:4] == kept and len(lines) == 5
    with RunStore.open(run_dir, readonly=True) as store:
        assert len(store.trials()) == 5


def test_a_log_line_cut_short_by_a_crash_is_skipped_not_merged(run_dir: Path) -> None:
    log = run_dir / "trials.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:5]) + lines[5][:40])  # the 6th line cut mid-write
    (run_dir / "run.sqlite").unlink()
    res = invoke("run", "--resume", str(run_dir), "--json")
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    assert body["restored_from_log"] == 5 and body["ran_now"] == 1
    assert "1 unreadable line(s)" in res.output
    log_now = read_log(run_dir)
    assert log_now.unreadable == 1 and len(log_now.records) == 6  # the rerun got its own line


def test_the_store_wins_over_older_log_lines(run_dir: Path) -> None:
    # a retried trial has several lines; what the store holds is never replaced
    with RunStore.open(run_dir) as store:
        first = store.trials()[0]
        store.commit_trial(first.model_copy(update={"wall_s": 123.0}))
    with RunStore.open(run_dir) as store:
        from tether.runs.rebuild import restore_missing

        assert restore_missing(store, read_log(run_dir)) == 0
        assert store.trials()[0].wall_s == 123.0
    last = (run_dir / "trials.jsonl").read_text().splitlines()[-1]
    assert TrialRecord.model_validate_json(last).wall_s == 123.0


def test_a_new_run_will_not_append_to_another_runs_log(run_dir: Path,
                                                       experiment: Path) -> None:
    (run_dir / "run.sqlite").unlink()
    one_line_error(invoke("run", str(experiment), "--out", str(run_dir)), "trials.jsonl")
