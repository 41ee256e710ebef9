"""Taking trials back from `trials.jsonl` into a store that lost them.

`trials.jsonl` is the append-only second copy of every committed trial (see
`runs.store`). When `run.sqlite` was emptied, deleted or replaced by an older copy,
`tether run --resume` puts every trial the log holds and the store lacks back into
the store, so finished trials are never run again and never lost. Each line is a
whole `TrialRecord`, which is all the store's trial, call and observation rows are
made of; the blobs themselves never left `artifacts/`. The run's events come back the
same way from `events.jsonl` (runs.events). `reopen` does both for every command that
resumes a run directory (`tether run --resume`, `tether compile --resume`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from tether.core import TrialRecord
from tether.errors import ConfigError
from tether.runs.events import RunEvents
from tether.runs.store import CONFIG_NAME, DB_NAME, LOG_NAME, EmptyStore, RunStore


@dataclass
class TrialLog:
    """The last line of each trial id in `trials.jsonl` (a retried trial's latest end)."""

    records: dict[str, TrialRecord] = field(default_factory=dict)
    lines: int = 0
    #: lines that are not a record (one cut short by a crash), skipped
    unreadable: int = 0


def read_log(run_dir: str | Path) -> TrialLog:
    log = TrialLog()
    path = Path(run_dir) / LOG_NAME
    if not path.is_file():
        return log
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            log.lines += 1
            try:
                record = TrialRecord.model_validate_json(raw)
            except ValidationError:
                log.unreadable += 1
                continue
            log.records[record.trial_id] = record
    return log


def restore_missing(store: RunStore, log: TrialLog) -> int:
    """Insert the logged trials the store lacks; the store's own rows always win.

    Returns how many were restored.
    """
    have = store.statuses()
    missing = [r for tid, r in log.records.items() if tid not in have]
    if not missing:
        return 0
    return store.import_records(sorted(missing, key=lambda r: r.index))


@dataclass
class Reopened:
    """A run store opened to resume, with what its logs gave back."""

    store: RunStore
    #: trials taken back from trials.jsonl
    restored: int = 0
    #: lines of trials.jsonl that were not a record (cut short by a crash)
    unreadable: int = 0
    #: events taken back from events.jsonl (runs.events)
    events_restored: int = 0


def open_to_resume(run_dir: Path) -> RunStore:
    """The run's store; an emptied or deleted one is made again (the logs refill it)."""
    has_db = (run_dir / DB_NAME).is_file()
    if not has_db and not (run_dir / CONFIG_NAME).is_file():
        raise ConfigError(f"{run_dir} is not a run directory (no {DB_NAME})",
                          hint="pass the directory a previous `tether run` wrote")
    if has_db:
        try:
            return RunStore.open(run_dir)
        except EmptyStore:
            pass  # nothing in it to lose: the schema is made and the log read back
    return RunStore(run_dir, create=True)


def reopen(run_dir: str | Path) -> Reopened:
    """Open a run directory to resume it (under its lock): the store, and every trial and
    event its logs hold that the store lacks, taken back into it."""
    store = open_to_resume(Path(run_dir))
    try:
        log = read_log(run_dir)
        restored = restore_missing(store, log)
        events, _ = RunEvents(store).restore()
    except BaseException:
        store.close()
        raise
    return Reopened(store, restored, log.unreadable, events)
