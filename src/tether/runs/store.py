"""The run directory and its store.

A run is a directory:
- `run.sqlite` (WAL): one row per finished trial (its whole record as JSON), its
  calls and observations as rows for querying, an index of its artifacts, and
  key/value metadata (the resolved config, the tether commit);
- `config.resolved.json`: the experiment as it was resolved, re-runnable verbatim;
- `artifacts/`: content-addressed blobs (programs, HTML, screenshots, overlays, the
  images a trial's calls showed a model: `runs.call_images`);
- `trials.jsonl`: an append-only log, one record per line, appended as each trial is
  committed (a retried trial appears again; its last line is the one that counts).
  No command ever truncates or rewrites it: it is the second copy of every trial,
  and `--resume` rebuilds a lost or emptied `run.sqlite` from it (`runs.rebuild`);
- `events.jsonl` (and the `events` table): what a run records besides its trials, such
  as a compile's teacher calls and its frozen selection (`runs.events`), kept the same
  way.

A trial is committed in one transaction when it ends (blobs are written first and
are idempotent, then the log line), so a crash leaves either the whole trial or
none of it in the store. Nothing is pickled (invariant 5): every row is JSON.

Commands that only read a run (`tether report`, the source of `tether rescore`) open
the store read-only (`RunStore.open(..., readonly=True)`): they never change a byte
of it. An empty, schema-less or damaged `run.sqlite` is refused with `StoreError`,
one line, before anything is read.

What a trial did before it ended is kept apart, as it happens: the `partial` table
gets a `start` row when the trial starts and one row per progress event (an agent's
finished turn), and commit replaces them with the finished trial. A trial that has
partial rows but no committed row was interrupted (the process was killed, or stopped
with Ctrl-C): `interrupted()` shows what it did, and `--resume` reruns it like any
missing trial. Run directories written before the `partial` table existed stay
readable: only writers create it, readers take a missing table as empty.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tether.core import MEDIA_TYPES, Artifact, Observation, TrialRecord, TrialSpec
from tether.errors import ConfigError, TetherError
from tether.runs.call_images import externalize_calls, inline_calls
from tether.runs.lock import lock_directory, unlock_directory
from tether.runs.store_faults import DiskFull, disk_full, first_error, rollback
from tether.textio import JSONError, loads, read_json

DB_NAME = "run.sqlite"
CONFIG_NAME = "config.resolved.json"
ARTIFACTS_DIR = "artifacts"
LOG_NAME = "trials.jsonl"
#: the meta key naming the command that wrote a run directory other than `tether run`
#: (a compile's); `tether run --resume` leaves such a directory to that command
COMMAND_META = "command"
#: the tables every run store has; a file without them is not a (whole) run store
TABLES = frozenset({"meta", "trials", "calls", "observations", "artifacts"})

_EXTENSIONS = {"text/x-python": "py", "text/html": "html", "text/plain": "txt",
               "text/x-shellscript": "sh", "image/png": "png", "application/json": "json"}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS trials (
  trial_id TEXT PRIMARY KEY, idx INTEGER NOT NULL, task TEXT NOT NULL,
  strategy TEXT NOT NULL, seed INTEGER NOT NULL, status TEXT NOT NULL,
  passed INTEGER, score REAL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS calls (
  trial_id TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT, model_id TEXT NOT NULL,
  request_hash TEXT NOT NULL, input_tokens INTEGER, output_tokens INTEGER,
  reasoning_tokens INTEGER, latency_s REAL, cache_hit INTEGER,
  PRIMARY KEY (trial_id, seq));
CREATE TABLE IF NOT EXISTS observations (
  trial_id TEXT NOT NULL, seq INTEGER NOT NULL, purpose TEXT NOT NULL,
  instrument TEXT NOT NULL, version TEXT NOT NULL, grounded INTEGER NOT NULL,
  artifact TEXT, score REAL, passed INTEGER, n_defects INTEGER, error TEXT,
  PRIMARY KEY (trial_id, seq));
CREATE TABLE IF NOT EXISTS artifacts (
  digest TEXT PRIMARY KEY, kind TEXT NOT NULL, media_type TEXT NOT NULL,
  path TEXT NOT NULL);
"""
#: Created by the first writer that needs it (never by a reader: see the module doc).
_PARTIAL_SCHEMA = """
CREATE TABLE IF NOT EXISTS partial (
  trial_id TEXT NOT NULL, seq INTEGER NOT NULL, idx INTEGER NOT NULL, kind TEXT NOT NULL,
  row TEXT NOT NULL, PRIMARY KEY (trial_id, seq))
"""
#: The status of a trial that started and never ended.
INTERRUPTED = "interrupted"


def append_line(path: Path, line: bytes) -> None:
    """Append one line to an append-only log (`trials.jsonl`, `events.jsonl`)."""
    # "a" mode only ever appends. A line cut short by a crash is closed first, so it
    # stays one unreadable line instead of swallowing the next record.
    with path.open("a+b") as fh:
        if fh.tell() > 0:
            fh.seek(-1, 2)
            if fh.read(1) != b"\n":
                fh.write(b"\n")
        fh.write(line + b"\n")


def blob_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class StoreError(TetherError):
    """`run.sqlite` is empty, not a run store, or damaged: refused, never rewritten."""


class EmptyStore(StoreError):
    """`run.sqlite` exists but holds nothing: 0 bytes, or a file with no tables."""


def _tables(db: sqlite3.Connection, path: Path) -> set[str]:
    """The tables of an open store; a file SQLite cannot read is a StoreError."""
    try:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.DatabaseError as exc:
        raise damaged(path, exc) from None
    return {r[0] for r in rows}


def _rebuild_hint(run_dir: Path, *, move_aside: bool) -> str | None:
    if not (run_dir / LOG_NAME).is_file():
        return None
    first = f"move {DB_NAME} aside, then " if move_aside else ""
    return (f"{run_dir / LOG_NAME} holds a copy of every committed trial: {first}"
            f"`tether run --resume {run_dir}` rebuilds the store from it")


def damaged(path: Path, exc: BaseException) -> StoreError:
    """The one-line error for a store SQLite cannot read (truncated, overwritten)."""
    return StoreError(f"{path} is damaged: {exc}",
                      hint=_rebuild_hint(path.parent, move_aside=True))


def readonly_uri(path: Path) -> str:
    """The URI that opens the SQLite file `path` for reading and leaves nothing beside it.

    mode=ro on a WAL database still creates -wal and -shm files; with no -wal file there
    (the last writer closed cleanly) every row is in the main file, so `immutable=1` reads
    it without creating either. A -wal left by a running or crashed writer holds rows:
    then the file is read through it (mode=ro alone).
    """
    wal = path.with_name(path.name + "-wal").exists()
    return f"{path.resolve().as_uri()}?mode=ro" + ("" if wal else "&immutable=1")


class RunStore:
    """A run directory. Thread-safe: one connection, serialised by a lock.

    `create` makes the directory and its schema; `readonly` opens an existing store
    with SQLite's `mode=ro`, so reading a run never writes to it. An existing file
    that is empty, lacks the schema or cannot be read raises StoreError.
    """

    def __init__(self, run_dir: str | Path, *, create: bool = False,
                 readonly: bool = False) -> None:
        self.dir = Path(run_dir)
        self.readonly = readonly
        self._closed = False
        path = self.dir / DB_NAME
        if not create and not path.is_file():
            raise ConfigError(f"{self.dir} is not a run directory (no {DB_NAME})",
                              hint="pass the directory `tether run` wrote (--out)")
        if not create and path.stat().st_size == 0:
            raise EmptyStore(f"{path} is empty (0 bytes): it holds no trials",
                             hint=_rebuild_hint(self.dir, move_aside=False))
        if readonly:
            self._db = sqlite3.connect(readonly_uri(path), uri=True,
                                       check_same_thread=False, isolation_level=None)
        else:
            # one writing process per run directory: a second `--resume` is refused
            lock_directory(self.dir, what="run directory",
                           hint="wait for that run to finish (or stop it), then resume")
            (self.dir / ARTIFACTS_DIR).mkdir(exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        try:
            tables = _tables(self._db, path)
            if not tables and not create:
                raise EmptyStore(f"{path} holds no run store (no tables)",
                                 hint=_rebuild_hint(self.dir, move_aside=False))
            # a writer adds tables a store lacks; without `trials` it is someone else's file
            if tables and not TABLES <= tables and (readonly or "trials" not in tables):
                missing = sorted(TABLES - tables)
                raise StoreError(f"{path} is not a run store (no table {missing[0]!r})",
                                 hint="pass the directory `tether run` wrote (--out)")
            if not readonly:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            self._close_connection()
            raise damaged(path, exc) from None
        except BaseException:
            self._close_connection()
            raise
        self._partial_ready = False

    @classmethod
    def open(cls, run_dir: str | Path, *, readonly: bool = False) -> RunStore:
        return cls(run_dir, readonly=readonly)

    def close(self) -> None:
        with self._lock:
            self._close_connection()

    def _close_connection(self) -> None:
        if not self._closed:
            self._closed = True
            self._db.close()
            if not self.readonly:
                unlock_directory(self.dir)

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """The store's connection, held under its lock: for a module that keeps a table
        of its own in the store (`runs.events`)."""
        with self._lock:
            yield self._db

    # --- metadata and config -----------------------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                             (key, json.dumps(value, sort_keys=True)))

    def meta(self, key: str, default: Any = None) -> Any:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else self._meta_value(key, row[0])

    def all_meta(self) -> dict[str, Any]:
        with self._lock:
            rows = self._db.execute("SELECT key, value FROM meta ORDER BY key").fetchall()
        return {k: self._meta_value(k, v) for k, v in rows}

    def _meta_value(self, key: str, text: str) -> Any:
        try:
            return loads(text)
        except JSONError as exc:
            raise StoreError(f"{self.dir / DB_NAME}: its {key!r} entry is not JSON ({exc})",
                             hint=_rebuild_hint(self.dir, move_aside=True)) from None

    def write_config(self, config: dict[str, Any]) -> None:
        """Keep the resolved config in the store and as a file a user can rerun."""
        text = json.dumps(config, indent=2, sort_keys=True)
        (self.dir / CONFIG_NAME).write_text(text + "\n")
        self.set_meta("config", config)

    def config(self) -> dict[str, Any]:
        cfg = self.meta("config")
        if cfg is None and (self.dir / CONFIG_NAME).exists():
            cfg = read_json(self.dir / CONFIG_NAME, what="the run's resolved config")
        if cfg is not None and not isinstance(cfg, dict):
            raise StoreError(f"{self.dir}: the run's resolved config is not a table",
                             hint="it is the config.resolved.json `tether run` wrote")
        return cfg or {}

    # --- artifacts ---------------------------------------------------------------
    def _write_blob(self, digest: str, kind: str, media_type: str, data: bytes) -> str:
        ext = _EXTENSIONS.get(media_type, "bin")
        rel = f"{ARTIFACTS_DIR}/{digest[:2]}/{digest}.{ext}"
        path = self.dir / rel
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            # a name of this writer's own: threads committing the same blob at once (two
            # items with the same answer) must not move each other's file away
            tmp = path.with_name(f"{digest}.{os.getpid()}-{threading.get_ident()}.tmp")
            tmp.write_bytes(data)
            tmp.replace(path)
        with self._lock:
            self._db.execute("INSERT OR IGNORE INTO artifacts VALUES (?, ?, ?, ?)",
                             (digest, kind, media_type, rel))
        return rel

    def put_artifact(self, artifact: Artifact) -> str:
        media = MEDIA_TYPES.get(artifact.kind, "text/plain")
        self._write_blob(artifact.digest, artifact.kind, media, artifact.text.encode())
        return artifact.digest

    def put_blob(self, data: bytes, *, kind: str = "image",
                 media_type: str = "image/png") -> str:
        """Store binary evidence (a screenshot, an overlay); returns its digest."""
        digest = blob_digest(data)
        self._write_blob(digest, kind, media_type, data)
        return digest

    def artifact_path(self, digest: str) -> Path | None:
        with self._lock:
            row = self._db.execute("SELECT path FROM artifacts WHERE digest = ?",
                                   (digest,)).fetchone()
        return None if row is None else self.dir / row[0]

    def artifact_text(self, digest: str) -> str | None:
        path = self.artifact_path(digest)
        return None if path is None else path.read_text()

    def artifact(self, digest: str) -> Artifact | None:
        with self._lock:
            row = self._db.execute("SELECT kind, path FROM artifacts WHERE digest = ?",
                                   (digest,)).fetchone()
        if row is None:
            return None
        return Artifact(kind=row[0], text=(self.dir / row[1]).read_text())

    def copy_artifacts_from(self, other: RunStore) -> int:
        """Copy every blob of another run (rescoring keeps the originals beside new trials)."""
        with other._lock:
            rows = other._db.execute(
                "SELECT digest, kind, media_type, path FROM artifacts").fetchall()
        for digest, kind, media_type, rel in rows:
            self._write_blob(digest, kind, media_type, (other.dir / rel).read_bytes())
        return len(rows)

    # --- trials ------------------------------------------------------------------
    def _externalize(self, obs: Observation | None) -> None:
        """Move inline image evidence (raw `NAME_png_b64`) into blobs (raw `NAME_digest`).

        Instruments cannot reach the store, so a screenshot or an overlay travels
        inline in the observation; rows stay small and the report finds the blob.
        """
        if obs is None:
            return
        for key in [k for k in obs.raw if k.endswith("_png_b64")]:
            value = obs.raw.pop(key)
            if isinstance(value, str):
                digest = self.put_blob(base64.b64decode(value), kind="image")
                obs.raw[key.removesuffix("_png_b64") + "_digest"] = digest

    def commit_trial(self, record: TrialRecord, artifacts: Iterable[Artifact] = ()) -> None:
        """Write a finished trial atomically (replacing an earlier errored attempt).

        Its log line is appended before the transaction: a crash between the two
        leaves the trial in `trials.jsonl`, from which a resume takes it back.
        """
        for art in artifacts:
            self.put_artifact(art)
        # images the calls showed a model are kept once, as blobs (runs.call_images)
        calls = externalize_calls(record.calls, lambda data, media: self.put_blob(
            data, kind="image", media_type=media))
        if any(new is not old for new, old in zip(calls, record.calls, strict=True)):
            record = record.model_copy(update={"calls": calls})
        self._externalize(record.metric)
        for row in record.observations:
            self._externalize(row.observation)
        with self._lock:
            try:
                self._append_log(record)
                self._insert(record)
            except (OSError, sqlite3.Error) as exc:
                if not disk_full(exc):
                    raise
                # the log line may be there, cut short or whole: a resume reads what is
                # whole and skips the rest; SQLite rolled the transaction back itself
                raise DiskFull(f"disk full: no room in {self.dir} to commit trial "
                               f"{record.trial_id}",
                               hint="free some space: every trial committed so far is "
                                    "kept, and a resume runs the rest") from None

    def import_records(self, records: Iterable[TrialRecord]) -> int:
        """Insert records taken from `trials.jsonl` (they are already in it: no new line).

        Their blobs are already in `artifacts/`: the index of every blob there is
        rebuilt too. Returns how many records were inserted.
        """
        records = list(records)
        kinds = {r.artifact: r.artifact_kind for r in records if r.artifact and r.artifact_kind}
        with self._lock:
            for record in records:
                self._insert(record)
        self.index_blobs(kinds)
        return len(records)

    def index_blobs(self, kinds: dict[str, str]) -> int:
        """Index every blob file under `artifacts/` (kind from `kinds`, else its extension)."""
        media = {ext: mt for mt, ext in _EXTENSIONS.items()}
        by_media = {mt: kind for kind, mt in MEDIA_TYPES.items()}
        by_media["image/png"] = "image"
        rows = []
        for path in sorted((self.dir / ARTIFACTS_DIR).glob("*/*.*")):
            digest, ext = path.stem, path.suffix.removeprefix(".")
            if ext == "tmp" or path.parent.name != digest[:2]:
                continue  # a blob write that never finished, or not a blob
            media_type = media.get(ext, "application/octet-stream")
            kind = kinds.get(digest) or by_media.get(media_type, "blob")
            rows.append((digest, kind, media_type, path.relative_to(self.dir).as_posix()))
        with self._lock:
            self._db.executemany("INSERT OR IGNORE INTO artifacts VALUES (?, ?, ?, ?)", rows)
        return len(rows)

    def _append_log(self, record: TrialRecord) -> None:
        append_line(self.dir / LOG_NAME, record.model_dump_json().encode())

    def _insert(self, record: TrialRecord) -> None:
        spec = record.spec
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            self._ensure_partial()
            for table in ("trials", "calls", "observations", "partial"):
                db.execute(f"DELETE FROM {table} WHERE trial_id = ?", (record.trial_id,))
            passed = record.passed
            db.execute(
                "INSERT INTO trials VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (record.trial_id, record.index, spec.task_key, spec.strategy, spec.seed,
                 record.status, None if passed is None else int(passed), record.score,
                 record.model_dump_json()))
            db.executemany(
                "INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(record.trial_id, i, c.role, c.model_id, c.request_hash,
                  c.usage.input_tokens, c.usage.output_tokens, c.usage.reasoning_tokens,
                  c.latency_s, int(c.cache_hit)) for i, c in enumerate(record.calls)])
            db.executemany(
                "INSERT INTO observations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(record.trial_id, i, o.purpose, o.observation.instrument,
                  o.observation.version, int(o.observation.grounded), o.artifact,
                  o.observation.score,
                  None if o.observation.passed is None else int(o.observation.passed),
                  len(o.observation.defects), o.observation.error)
                 for i, o in enumerate(record.observations)])
            db.execute("COMMIT")
        except BaseException:
            rollback(db)
            raise

    # --- partial trials (progress of trials still running, or killed) --------------
    def _ensure_partial(self) -> None:
        """Create the partial table (writers only; call with the lock held)."""
        if not self._partial_ready:
            self._db.execute(_PARTIAL_SCHEMA)
            self._partial_ready = True

    def start_partial(self, spec: TrialSpec, index: int) -> None:
        """A trial starts: drop what an earlier, interrupted run of it left, note its spec."""
        with self._lock:
            self._ensure_partial()
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM partial WHERE trial_id = ?", (spec.trial_id,))
                self._db.execute("INSERT INTO partial VALUES (?, 0, ?, 'start', ?)",
                                 (spec.trial_id, index, spec.model_dump_json()))
                self._db.execute("COMMIT")
            except BaseException:
                rollback(self._db)
                raise

    def append_partial(self, trial_id: str, kind: str, row: dict[str, Any]) -> None:
        """One progress event of a started trial (e.g. kind "turn": an agent's turn)."""
        text = json.dumps(row, sort_keys=True)
        with self._lock:
            self._ensure_partial()
            self._db.execute(
                "INSERT INTO partial SELECT trial_id, (SELECT MAX(seq) + 1 FROM partial "
                "WHERE trial_id = ?), idx, ?, ? FROM partial WHERE trial_id = ? AND seq = 0",
                (trial_id, kind, text, trial_id))

    def partial_rows(self, trial_id: str) -> list[tuple[str, dict[str, Any]]]:
        """(kind, row) of every progress event of a trial not committed yet, in order."""
        with self._lock:
            try:
                rows = self._db.execute(
                    "SELECT kind, row FROM partial WHERE trial_id = ? AND seq > 0 ORDER BY seq",
                    (trial_id,)).fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return []  # a run written before partial rows existed
                raise
        return [(kind, json.loads(row)) for kind, row in rows]

    def interrupted(self) -> list[TrialRecord]:
        """Trials that started and never ended, as records with status `interrupted` and
        their progress so far (agent turns in `extra["turn_records"]`), in experiment order.
        """
        with self._lock:
            try:
                starts = self._db.execute(
                    "SELECT trial_id, idx, row FROM partial WHERE seq = 0 AND trial_id NOT IN "
                    "(SELECT trial_id FROM trials) ORDER BY idx").fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return []
                raise
        out = []
        for trial_id, index, spec in starts:
            events = self.partial_rows(trial_id)
            turns = [row for kind, row in events if kind == "turn"]
            out.append(TrialRecord(
                trial_id=trial_id, index=index, spec=TrialSpec.model_validate_json(spec),
                status=INTERRUPTED,
                extra={"end_state": INTERRUPTED, "turns": len(turns), "turn_records": turns}))
        return out

    def trials(self, *, images: bool = True) -> list[TrialRecord]:
        """Every committed trial, in experiment order; StoreError (one line naming the
        trial) for a row that is not a trial record. The images its calls showed a model
        are put back into their messages (runs.call_images) unless `images` is False (a
        reader of facts and scores only)."""
        with self._lock:
            rows = self._db.execute("SELECT trial_id, record FROM trials ORDER BY idx"
                                    ).fetchall()
        out = []
        for trial_id, text in rows:
            try:
                record = TrialRecord.model_validate_json(text)
            except ValueError as exc:  # a ValidationError, or not JSON at all
                raise StoreError(
                    f"{self.dir / DB_NAME}: trial {trial_id!r} is not a valid trial record "
                    f"({first_error(exc)})", hint=_rebuild_hint(self.dir, move_aside=True)
                ) from None
            if images and record.calls:
                calls = inline_calls(record.calls, self._blob_bytes)
                if any(new is not old for new, old in zip(calls, record.calls, strict=True)):
                    record = record.model_copy(update={"calls": calls})
            out.append(record)
        return out

    def _blob_bytes(self, digest: str) -> bytes | None:
        path = self.artifact_path(digest)
        try:
            return None if path is None else path.read_bytes()
        except OSError:
            return None

    def statuses(self) -> dict[str, str]:
        """trial_id -> end state of every committed trial (what resume needs)."""
        with self._lock:
            rows = self._db.execute("SELECT trial_id, status FROM trials").fetchall()
        return dict(rows)
