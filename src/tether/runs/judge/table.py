"""The `judgements` table: judge results kept in the run's own `run.sqlite`.

One row per (trial_id, judged, version, repeat): `judged` is a rubric set's key
(`terminal-behaviour/prior`) or a check's name (`reward-hacking`); `repeat` numbers the
independent judge runs of one attempt (0, 1, ... for `tether judge --repeats K`; a table
written before repeats existed is read, and migrated by the next writer, as repeat 0).
A row holds the
status (`ok` or `judge_error`), the parsed answer (flags and evidence, or a label), the
error when there is none, the judge's model id and every judge call as recorded
(`CallRecord.to_json()`, role `judge`). Only `tether judge` writes it, in its own
connection (WAL, one transaction per row); readers open the file read-only and treat a
missing table as empty, so a report of a run nobody judged is unchanged. The trials,
calls and log of the run are never touched. The table is not in `trials.jsonl`: a store
rebuilt from the log (`tether run --resume` after losing `run.sqlite`) has no judgements
and the run must be judged again.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.runs.store import DB_NAME, RunStore, readonly_uri

TABLE = "judgements"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
  trial_id TEXT NOT NULL, judged TEXT NOT NULL, version TEXT NOT NULL,
  status TEXT NOT NULL, result TEXT, error TEXT, judge_model TEXT NOT NULL,
  calls TEXT NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
  repeat INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (trial_id, judged, version, repeat));
"""
_COLUMNS = ("trial_id, judged, version, status, result, error, judge_model, calls, "
            "input_tokens, output_tokens")
OK = "ok"
JUDGE_ERROR = "judge_error"


@dataclass(frozen=True)
class Judgement:
    trial_id: str
    judged: str
    version: str
    status: str
    result: dict[str, Any] | None
    error: str | None
    judge_model: str
    calls: list[dict[str, Any]]
    input_tokens: int = 0
    output_tokens: int = 0
    #: which independent run of the judge on this attempt (0 = the first)
    repeat: int = 0

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def answer(self) -> dict[str, Any]:
        """The judge's parsed answer, read only from an ok judgement (which has one)."""
        if self.result is None:
            raise ValueError(f"judgement of {self.trial_id!r} has no answer ({self.status})")
        return self.result


class JudgeTable:
    """Read or write the judgements of one run directory (validated by RunStore first)."""

    def __init__(self, run_dir: str | Path, *, readonly: bool = True) -> None:
        RunStore.open(run_dir, readonly=True).close()  # refuses what is not a run store
        path = Path(run_dir) / DB_NAME
        if readonly:
            self._db = sqlite3.connect(readonly_uri(path), uri=True,
                                       isolation_level=None)
        else:
            self._db = sqlite3.connect(path, isolation_level=None, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._migrate()
            self._db.executescript(_SCHEMA)

    def _has_repeat(self) -> bool:
        return any(r[1] == "repeat" for r in self._db.execute(f"PRAGMA table_info({TABLE})"))

    def _migrate(self) -> None:
        """A table from before repeats: copied into the new key as repeat 0, in one
        transaction (a crash leaves the old table as it was)."""
        if not self._exists() or self._has_repeat():
            return
        self._db.executescript(
            f"BEGIN; ALTER TABLE {TABLE} RENAME TO {TABLE}_old; {_SCHEMA} "
            f"INSERT INTO {TABLE} ({_COLUMNS}, repeat) SELECT {_COLUMNS}, 0 FROM {TABLE}_old; "
            f"DROP TABLE {TABLE}_old; COMMIT;")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> JudgeTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _exists(self) -> bool:
        row = self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                               (TABLE,)).fetchone()
        return row is not None

    def put(self, j: Judgement) -> None:
        """Insert or replace one judgement (a rerun replaces a judge error)."""
        self._db.execute(
            f"INSERT OR REPLACE INTO {TABLE} ({_COLUMNS}, repeat) "
            f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (j.trial_id, j.judged, j.version, j.status,
             None if j.result is None else json.dumps(j.result, sort_keys=True), j.error,
             j.judge_model, json.dumps(j.calls, sort_keys=True, default=str),
             j.input_tokens, j.output_tokens, j.repeat))

    def all(self, judged_prefix: str = "") -> list[Judgement]:
        """Every judgement whose `judged` starts with the prefix; [] without the table."""
        if not self._exists():
            return []
        repeat = "repeat" if self._has_repeat() else "0"
        rows = self._db.execute(
            f"SELECT {_COLUMNS}, {repeat} FROM {TABLE} WHERE judged LIKE ? || '%' "
            f"ORDER BY judged, version, trial_id, 11", (judged_prefix,)).fetchall()
        return [Judgement(r[0], r[1], r[2], r[3], None if r[4] is None else json.loads(r[4]),
                          r[5], r[6], json.loads(r[7]), r[8], r[9], r[10]) for r in rows]

    def done(self, judged: str, version: str) -> set[tuple[str, int]]:
        """(trial id, repeat) already judged without error under (judged, version)."""
        if not self._exists():
            return set()
        repeat = "repeat" if self._has_repeat() else "0"
        rows = self._db.execute(f"SELECT trial_id, {repeat} FROM {TABLE} WHERE judged = ? "
                                f"AND version = ? AND status = ?", (judged, version, OK))
        return {(r[0], int(r[1])) for r in rows}


def read_judgements(run_dir: str | Path, judged_prefix: str = "") -> list[Judgement]:
    """The judgements of a run, read-only (empty when it was never judged)."""
    with JudgeTable(run_dir, readonly=True) as table:
        return table.all(judged_prefix)
