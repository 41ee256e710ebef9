"""A run's recorded events: what it records besides its trials, in the order it happened.

    events = RunEvents(store)
    events.record("teacher_call", "0/r01", {"input_tokens": 812, ...})
    events.latest("teacher_call", "0/r01")      # the row, or None
    events.of_kind("round")                     # every event of a kind, in record order

Trials are a run's scored units; some runs also decide things between them that a resume
must find again and a report must show: a compile records each teacher call, round,
verdict and its frozen selection as events (its documents, such as harness proposals and
teacher prompts, are the run's content-addressed artifacts). An event is a kind, a key
and a JSON row, with an id of its own.

Events are kept as trials are (runs.store): each is appended to `events.jsonl` and
inserted into the `events` table of `run.sqlite` under the store's lock, the log line
first, so a crash leaves the event in the log or in both. `--resume` takes back from the
log every event the store lacks (`restore`); a line cut short by a kill is skipped.
Recording the same (kind, key) again adds a row: `latest` reads the last one. Only
writers create the table, so readers of runs that have no events find none.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.runs.store import RunStore, append_line
from tether.textio import JSONError, loads

__all__ = ["EVENTS_LOG", "Event", "RunEvents"]

EVENTS_LOG = "events.jsonl"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
  key TEXT NOT NULL, row TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_kind_key ON events (kind, key);
"""


@dataclass(frozen=True)
class Event:
    """One recorded event; `row` is read back as the JSON text it was stored as."""

    id: str
    kind: str
    key: str
    text: str

    def row(self) -> Any:
        """The row's JSON value (JSONError for a row damaged by hand)."""
        return loads(self.text)


class RunEvents:
    """The events of one open run store (see the module docstring)."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self._ready = False

    @property
    def log(self) -> Path:
        return Path(self.store.dir) / EVENTS_LOG

    def _ensure(self, db: sqlite3.Connection) -> None:
        if not self._ready:
            db.executescript(_SCHEMA)
            self._ready = True

    def record(self, kind: str, key: str, row: Any) -> None:
        """Keep one event: its log line, then its row in the store."""
        event = Event(uuid.uuid4().hex, kind, key, json.dumps(row, sort_keys=True))
        line = json.dumps({"id": event.id, "kind": kind, "key": key, "row": row},
                          sort_keys=True).encode()
        with self.store.connection() as db:
            append_line(self.log, line)
            self._ensure(db)
            _insert(db, event)

    def latest(self, kind: str, key: str) -> Event | None:
        """The last event recorded under (kind, key), or None."""
        rows = self._select("SELECT id, kind, key, row FROM events WHERE kind = ? AND key = ? "
                            "ORDER BY seq DESC LIMIT 1", (kind, key))
        return rows[0] if rows else None

    def of_kind(self, kind: str) -> list[Event]:
        """Every event of `kind`, in the order the store took them."""
        return self._select("SELECT id, kind, key, row FROM events WHERE kind = ? "
                            "ORDER BY seq", (kind,))

    def _select(self, sql: str, args: tuple[Any, ...]) -> list[Event]:
        with self.store.connection() as db:
            try:
                rows = db.execute(sql, args).fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return []  # a run that recorded no event
                raise
        return [Event(*r) for r in rows]

    def restore(self) -> tuple[int, int]:
        """Take back from `events.jsonl` the events the store lacks (a store emptied,
        deleted or replaced by an older copy): (events restored, unreadable lines)."""
        lines = list(_read_log(self.log))
        with self.store.connection() as db:
            self._ensure(db)
            have = {r[0] for r in db.execute("SELECT id FROM events")}
            missing = [e for e in lines if e is not None and e.id not in have]
            for event in missing:
                _insert(db, event)
        return len(missing), sum(1 for e in lines if e is None)


def _insert(db: sqlite3.Connection, event: Event) -> None:
    db.execute("INSERT OR IGNORE INTO events (id, kind, key, row) VALUES (?, ?, ?, ?)",
               (event.id, event.kind, event.key, event.text))


def _read_log(path: Path) -> Iterator[Event | None]:
    """Each line of the log as an event; None for a line that is not one (cut short)."""
    if not path.is_file():
        return
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            try:
                line = loads(raw)
            except JSONError:
                yield None
                continue
            if not (isinstance(line, dict) and all(isinstance(line.get(k), str)
                                                   for k in ("id", "kind", "key"))
                    and "row" in line):
                yield None
                continue
            yield Event(line["id"], line["kind"], line["key"],
                        json.dumps(line["row"], sort_keys=True))
