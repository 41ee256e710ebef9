"""Taking trials back from `trials.jsonl` into a store that lost them.

`trials.jsonl` is the append-only second copy of every committed trial (see
`runs.store`). When `run.sqlite` was emptied, deleted or replaced by an older copy,
`tether run --resume` puts every trial the log holds and the store lacks back into
the store, so finished trials are never run again and never lost. Each line is a
whole `TrialRecord`, which is all the store's trial, call and observation rows are
made of; the blobs themselves never left `artifacts/`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from tether.core import TrialRecord
from tether.runs.store import LOG_NAME, RunStore


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
