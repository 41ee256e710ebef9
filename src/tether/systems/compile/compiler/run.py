"""A compile's run directory: the kernel's run store (`tether.runs`), nothing of its own.

    run = CompileRun.create(out, config, tasks)   # a new compile (holds the directory lock)
    run = CompileRun.reopen(out)                  # `tether compile --resume`
    run = CompileRun.read(out)                    # `tether report` (read-only)

`tether compile --out DIR` writes what `tether run` writes: `run.sqlite` (WAL),
`trials.jsonl`, `events.jsonl`, `artifacts/` and `config.resolved.json`, under the same
directory lock (one writing process), with the same atomic commits, the same refusal of
a damaged store and the same rebuild of a lost one from its logs on `--resume`
(`tether.runs.reopen`). What a compile records there:

- trials: each student scoring of an item (item, harness or baseline, student, seed),
  committed as soon as it is known (compiler/trial.py); the scores of the same harness on
  the same split are shared by the builds of a directory;
- artifacts (content-addressed): each answer, each proposal's harness document (its
  digest is the harness hash), each teacher prompt and reply;
- events (`tether.runs.RunEvents`): `compile` (the config, the splits' items and their
  tasks: what `--resume` and `tether rescore` read), `build`, and per build (scope `K`,
  and `K/gepa` for its GEPA search) `teacher_call`, `round`, `verdict`, `probe_report`,
  `proposal`, `selected` (the frozen selection, recorded before any test item is
  scored), `oneshot`, `gepa` and `test` (compiler/build_records.py); `student_call`
  (every student call's record as it is made: what a resumed compile is charged with);
  and `result` (the `--json` output).

Meta `command` = `compile` marks the directory as a compile's: `tether run --resume`
leaves it alone, and the report's compile section shows it (systems/compile/report.py).
A row of the wrong shape (a store edited by hand) is one ConfigError naming it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel

from tether.core import Artifact, Task, TrialRecord
from tether.errors import ConfigError
from tether.models import CallRecord
from tether.runs import (
    COMMAND_META,
    CONFIG_NAME,
    DB_NAME,
    LOG_NAME,
    RunEvents,
    RunStore,
    reopen,
    tether_revision,
)
from tether.systems.compile.compiler import records
from tether.systems.compile.compiler.build_records import BuildRecords
from tether.systems.compile.compiler.scoring import SplitScore
from tether.systems.compile.compiler.trial import Scoring, row_of, scoring_record
from tether.systems.compile.setting import Item, Setting
from tether.textio import JSONError

__all__ = ["COMMAND", "CompileRun", "is_old_build_dir"]

#: the value of the store's meta `command` in a compile's run directory
COMMAND = "compile"
#: the scores of a (scope, split, key): item id -> the scorer's row
Rows = dict[str, dict[str, Any]]


def is_old_build_dir(path: Path) -> bool:
    """True for a build directory an earlier tether wrote (config.json and builds/)."""
    return (path / "config.json").is_file() and (path / "builds").is_dir()


class CompileRun:
    """One compile's run directory (see the module docstring).

    A deployment's run (`tether harness apply`, compiler/deploy.py) is the same store
    under its own command and opening event (`command`, `head`)."""

    #: the store's meta `command`, and the event that opens the directory
    command = COMMAND
    head = "compile"

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self.root = Path(store.dir)
        self.events = RunEvents(store)
        self._lock = threading.Lock()
        self._rows: dict[tuple[str, str, str], Rows] | None = None
        self._next_index = 0
        self._compile: dict[str, Any] | None = None
        self._tasks: dict[tuple[str, str], Task] | None = None

    # -- opening -------------------------------------------------------------------
    @classmethod
    def create(cls, out: str | Path, config: dict[str, Any], tasks: Sequence[Task]
               ) -> Self:
        """A new compile in `out` (the directory lock held until `close`)."""
        root = Path(out)
        _refuse_old(root, "compile into it")
        if (root / DB_NAME).is_file() or (root / LOG_NAME).is_file():
            raise ConfigError(f"{root} already holds a compile or a run",
                              hint=f"tether {cls.command} --resume {root}, or another --out")
        if root.exists() and not root.is_dir():
            raise ConfigError(f"--out {root} exists and is not a directory")
        try:
            store = RunStore(root, create=True)
        except OSError as exc:
            raise ConfigError(f"cannot create run directory {root}: {exc.strerror}") from None
        run = cls(store)
        if store.meta("config") is not None:  # another compile got here first
            store.close()
            raise ConfigError(f"{root} already holds a compile or a run",
                              hint=f"tether {cls.command} --resume {root}, or another --out")
        splits: dict[str, list[str]] = {}
        for task in tasks:
            splits.setdefault(str(task.data["split"]), []).append(task.id)
        compile_row = {"config": config, "splits": splits,
                       "tasks": {t.key: t.model_dump(mode="json") for t in tasks}}
        run.events.record(cls.head, "", compile_row)
        run._mark(compile_row)
        return run

    @classmethod
    def reopen(cls, out: str | Path) -> Self:
        """The compile in `out`, to resume it: its store, with what its logs hold that
        the store lost taken back (`tether.runs.reopen`)."""
        root = Path(out)
        _refuse_old(root, "resume it")
        if not (root / DB_NAME).is_file() and not (root / CONFIG_NAME).is_file():
            raise ConfigError(f"{root} holds no {cls.head} to resume (no {DB_NAME})",
                              hint=f"pass the --out directory of a `tether {cls.command}`")
        run = cls(reopen(root).store)
        try:
            found = run.events.latest(cls.head, "")
            if found is None:
                written = run.store.meta(COMMAND_META)
                raise ConfigError(f"{root} holds no {cls.head} to resume (another command's "
                                  f"run, or one killed before it began)",
                                  hint=f"tether {written or 'run'} --resume {root}"
                                  if written != cls.command else "start it again")
            run._mark(run._read(found, records.CompileRow))
        except BaseException:
            run.close()
            raise
        return run

    @classmethod
    def read(cls, out: str | Path) -> Self:
        """The compile in `out`, read-only (a report never changes a byte of it)."""
        return cls(RunStore.open(out, readonly=True))

    def _mark(self, compile_row: dict[str, Any]) -> None:
        """The store's meta as `tether run` keeps it: the config (also as the
        re-runnable config.resolved.json) and the tasks (what `tether rescore` reads)."""
        self.store.write_config(compile_row["config"])
        self.store.set_meta(COMMAND_META, self.command)
        self.store.set_meta("tether", tether_revision())
        self.store.set_meta("tasks", compile_row["tasks"])
        self._compile = compile_row

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- events ----------------------------------------------------------------------
    def _read(self, event: Any, shape: type[BaseModel]) -> Any:
        """An event's row once it has `shape`; a damaged one is a ConfigError naming it."""
        where = f"{self.root / DB_NAME}: event {event.kind} {event.key!r}"
        try:
            value = event.row()
        except JSONError as exc:
            raise records.damaged_event(self.root, where, f"not valid JSON: {exc}") from None
        return records.checked(value, shape,
                               lambda why: records.damaged_event(self.root, where, why))

    def event(self, kind: str, key: str, shape: type[BaseModel] = records.Record) -> Any:
        found = self.events.latest(kind, key)
        return None if found is None else self._read(found, shape)

    def events_in(self, kind: str, scope: str, shape: type[BaseModel] = records.Record
                  ) -> list[Any]:
        """The last row of each key of `kind` in `scope` (keys `SCOPE/NAME`), by key."""
        last = {e.key: e for e in self.events.of_kind(kind)
                if e.key.rpartition("/")[0] == scope}
        return [self._read(last[k], shape) for k in sorted(last)]

    def record(self, kind: str, key: str, row: Any) -> None:
        self.events.record(kind, key, row)

    # -- the compile's config and result --------------------------------------------
    def compile_row(self) -> dict[str, Any] | None:
        if self._compile is None:
            self._compile = self.event(self.head, "", records.CompileRow)
        return self._compile

    def config(self) -> dict[str, Any] | None:
        row = self.compile_row()
        return None if row is None else dict(row["config"])

    def result(self) -> dict[str, Any] | None:
        return self.event("result", "")

    def write_result(self, result: dict[str, Any]) -> None:
        self.record("result", "", result)

    # -- builds -----------------------------------------------------------------------
    def start_build(self, index: int) -> None:
        if self.event("build", str(index)) is None:
            self.record("build", str(index), {"build": index})

    def build(self, index: int) -> BuildRecords:
        return BuildRecords(self, str(index))

    def build_indices(self) -> list[int]:
        return sorted({int(e.key) for e in self.events.of_kind("build")})

    # -- student calls (shared by the builds, as the scores are) ----------------------
    def append_student_call(self, row: dict[str, Any]) -> None:
        self.record("student_call", f"{row.get('split')}/{row.get('key')}/{row.get('item_id')}",
                    row)

    def student_calls(self) -> list[dict[str, Any]]:
        """Every student call recorded (each as it was made)."""
        return [self._read(e, records.StudentCall)
                for e in self.events.of_kind("student_call")]

    def records_student_calls(self) -> bool:
        return True

    # -- scorings -----------------------------------------------------------------------
    def _index(self) -> dict[tuple[str, str, str], Rows]:
        with self._lock:
            if self._rows is None:
                rows: dict[tuple[str, str, str], Rows] = {}
                trials = self.store.trials(images=False)  # facts and scores only
                for record in trials:
                    facts = record.extra
                    if "item_outcome" not in facts:
                        continue  # not a scoring (a trial of another kind)
                    group = (str(facts.get("scope") or ""), str(facts["split"]),
                             str(facts["key"]))
                    rows.setdefault(group, {})[str(facts["item_id"])] = row_of(record)
                self._rows = rows
                self._next_index = max((r.index for r in trials), default=-1) + 1
            return self._rows

    def scored(self, scoring: Scoring) -> Rows:
        """The items scored so far with `scoring`, by item id."""
        return dict(self._index().get((scoring.scope, scoring.split, scoring.key), {}))

    def commit(self, scoring: Scoring, setting: Setting, item: Item, row: dict[str, Any],
               calls: list[CallRecord], *, modality: str, wall_s: float) -> TrialRecord:
        """Record one scored item as a trial (committed before this returns)."""
        task = self._task(scoring.split, item.item_id)
        config = self.config() or {}
        spec = scoring.spec(task, student=str(config["student"]), seed=int(config["seed"]))
        index = self._reserve_index()
        record, artifact = scoring_record(scoring, spec, index, row, calls, setting, item,
                                          modality=modality, wall_s=wall_s)
        self.store.commit_trial(record, [artifact] if isinstance(artifact, Artifact) else [])
        with self._lock:
            assert self._rows is not None  # _reserve_index built it
            self._rows.setdefault((scoring.scope, scoring.split, scoring.key), {})[
                item.item_id] = row_of(record)
        return record

    def _reserve_index(self) -> int:
        self._index()
        with self._lock:
            index, self._next_index = self._next_index, self._next_index + 1
        return index

    def _task(self, split: str, item_id: str) -> Task:
        if self._tasks is None:
            rows = (self.compile_row() or {}).get("tasks", {})
            self._tasks = {(str(r["data"]["split"]), str(r["id"])): Task.model_validate(r)
                           for r in rows.values()}
        task = self._tasks.get((split, item_id))
        if task is None:
            raise ConfigError(f"{self.root}: no task for item {item_id!r} of the {split} "
                              "split", hint="the compile's splits changed: compile again "
                                            "with a new --out")
        return task

    def split_order(self, split: str) -> list[str]:
        return list(((self.compile_row() or {}).get("splits") or {}).get(split, []))

    def split_score(self, split: str, key: str) -> SplitScore | None:
        """The compile's scores of `key` on the whole split, in split order; None while
        an item of it has none (a split a budget stop or a kill left incomplete)."""
        rows = self._index().get(("", split, key), {})
        order = self.split_order(split)
        if not order or any(item_id not in rows for item_id in order):
            return None
        return SplitScore.of_rows(key, split, [rows[i] for i in order])


def _refuse_old(root: Path, what: str) -> None:
    if is_old_build_dir(root):
        raise ConfigError(f"{root} is a build directory written by an earlier tether: "
                          f"`tether report {root}` reads it, but it cannot {what}",
                          hint="compile again with a new --out")
