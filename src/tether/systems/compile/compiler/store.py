"""The build directory: every step of a compile written atomically, read back on resume.

    DIR/config.json                       the resolved compile config (resume reads it)
    DIR/scores/SPLIT/KEY.json             a harness's (or baseline's) finished scores on a
                                          split; KEY: its hash, HASH+INTERVENTION, or a
                                          baseline's key (systems/compile/baselines.py)
    DIR/scores/SPLIT/KEY.partial.jsonl    its items scored so far (one line each)
    DIR/builds/K/proposals/HASH.json      every proposal the teacher made (the document)
    DIR/builds/K/verdicts/HASH.json       its admissibility verdict
    DIR/builds/K/probe/HASH.json          its probe report (the evidence the teacher sees)
    DIR/builds/K/teacher/KEY.json         each teacher call: prompt, reply, tokens, error
    DIR/builds/K/rounds/NNN.json          each round's record (hash, verdict, gate decision)
    DIR/builds/K/selected.json            the frozen selection, written before any test item
    DIR/builds/K/oneshot.json             the one-shot teacher harness (Table 22 comparator)
    DIR/builds/K/gepa.json                the GEPA comparator's search and its best harness
    DIR/builds/K/gepa/teacher/KEY.json    its reflection calls (as teacher/ above)
    DIR/builds/K/gepa/scores/SPLIT/...    its probe and validation scores, item by item
    DIR/builds/K/test.json                test scores of bare, the selection, the comparators
    DIR/student/calls.jsonl               every student call's record (role, request hash,
                                          usage, latency, sampling parameters; split, key,
                                          item), one line each, appended as it is made
    DIR/result.json                       the summary `tether compile --json` prints

Files are written to a temporary name, flushed and renamed (atomic on POSIX), so a kill
leaves each step either whole or absent. Scores are shared by the builds of a directory
(the student and the splits are the same), keyed by split and harness hash. A partial
line cut by a kill is ignored on reading.

A file damaged by hand (cut short, not UTF-8, nested past the parser, the wrong shape)
is a ConfigError naming it, checked when it is read. One process at a time works in a
directory: `lock()` takes the directory lock runs share (tether.runs: DIR/.lock, an
exclusive flock released when the process ends).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tether.runs import holds_directory, lock_directory, unlock_directory
from tether.systems.compile.compiler import records
from tether.systems.compile.compiler.config import CompileConfig
from tether.systems.compile.compiler.records import damaged, read_record
from tether.systems.compile.compiler.scoring import SplitScore
from tether.textio import JSONError, loads

__all__ = ["BuildDir", "BuildStore", "write_json_atomic"]




def write_json_atomic(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(value, fh, indent=1, sort_keys=True, ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class BuildDir:
    """The directory of one `tether compile` (one or more builds)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._calls_lock = threading.Lock()  # concurrent items append their calls

    def lock(self) -> bool:
        """Hold the directory's lock (tether.runs' directory lock) until `unlock()` or the
        end of this process; DirectoryBusy (a ConfigError) naming the directory when
        another process holds it. False when this process holds it already (then it is
        left as it is)."""
        if holds_directory(self.root):
            return False
        lock_directory(self.root, what="build directory",
                       hint="wait for that compile to finish, or use another --out")
        return True

    def unlock(self) -> None:
        """Let another process work in the directory (a no-op when not held)."""
        unlock_directory(self.root)

    # -- config and summary ------------------------------------------------------------
    def config(self) -> dict[str, Any] | None:
        return read_record(self.root / "config.json", CompileConfig)

    def write_config(self, config: dict[str, Any]) -> None:
        write_json_atomic(self.root / "config.json", config)

    def write_result(self, result: dict[str, Any]) -> None:
        write_json_atomic(self.root / "result.json", result)

    def result(self) -> dict[str, Any] | None:
        return read_record(self.root / "result.json", records.Record)

    # -- student calls (shared by the builds, as the scores are) ------------------------
    def student_calls(self) -> list[dict[str, Any]]:
        """Every student call recorded so far (a line cut by a kill is left out)."""
        return _jsonl(self.root / "student" / "calls.jsonl")

    def records_student_calls(self) -> bool:
        """False for a directory written before student calls were recorded."""
        return (self.root / "student" / "calls.jsonl").is_file()

    def start_student_calls(self) -> None:
        path = self.root / "student" / "calls.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def append_student_call(self, row: dict[str, Any]) -> None:
        with self._calls_lock:
            _append(self.root / "student" / "calls.jsonl", row)

    def build(self, index: int) -> BuildStore:
        return BuildStore(self.root / "builds" / str(index))

    def build_indices(self) -> list[int]:
        base = self.root / "builds"
        if not base.is_dir():
            return []
        return sorted(int(p.name) for p in base.iterdir() if p.name.isdigit())

    # -- scores (shared by the builds) -------------------------------------------------
    def _score_path(self, split: str, harness_hash: str, suffix: str) -> Path:
        return self.root / "scores" / split / f"{harness_hash}{suffix}"

    def split_score(self, split: str, harness_hash: str) -> SplitScore | None:
        row = read_record(self._score_path(split, harness_hash, ".json"),
                          records.Score)
        return SplitScore.from_json(row) if row is not None else None

    def write_split_score(self, score: SplitScore) -> None:
        write_json_atomic(self._score_path(score.split, score.hash, ".json"), score.to_json())
        self._score_path(score.split, score.hash, ".partial.jsonl").unlink(missing_ok=True)

    def partial_items(self, split: str, harness_hash: str) -> list[dict[str, Any]]:
        # a line a kill cut short is left out: that item is scored again
        return _jsonl(self._score_path(split, harness_hash, ".partial.jsonl"), key="item_id")

    def append_partial(self, split: str, harness_hash: str, row: dict[str, Any]) -> None:
        _append(self._score_path(split, harness_hash, ".partial.jsonl"), row)


def _jsonl(path: Path, key: str | None = None) -> list[dict[str, Any]]:
    """The rows of a JSONL file, less a line a kill cut short; a line that parses but
    is not an object (with a text `key`, when one is named) is damage, named."""
    if not path.is_file():
        return []
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        try:
            row = loads(line)
        except JSONError:
            continue
        if not isinstance(row, dict) or (key is not None and not isinstance(row.get(key), str)):
            raise damaged(path, f"line {number}: not a row of this file")
        rows.append(row)
    return rows


def _append(path: Path, row: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as fh:
        # after a line a kill cut short, start a new line: the row is not lost with it
        cut = False
        if fh.tell() > 0:  # append mode opens at the end
            fh.seek(-1, os.SEEK_END)
            cut = fh.read(1) != b"\n"
        line = json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n"
        fh.write((("\n" if cut else "") + line).encode("utf-8"))
        fh.flush()
        os.fsync(fh.fileno())


class BuildStore:
    """One build's files (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _get(self, *parts: str, shape: type[BaseModel] = records.Record) -> Any:
        return read_record(self.root.joinpath(*parts), shape)

    def _put(self, value: Any, *parts: str) -> None:
        write_json_atomic(self.root.joinpath(*parts), value)

    def proposal(self, harness_hash: str) -> dict[str, Any] | None:
        return self._get("proposals", f"{harness_hash}.json")

    def write_proposal(self, harness_hash: str, document: dict[str, Any]) -> None:
        self._put(document, "proposals", f"{harness_hash}.json")

    def verdict(self, harness_hash: str) -> dict[str, Any] | None:
        return self._get("verdicts", f"{harness_hash}.json", shape=records.Verdict)

    def write_verdict(self, harness_hash: str, verdict: dict[str, Any]) -> None:
        self._put(verdict, "verdicts", f"{harness_hash}.json")

    def probe_report(self, harness_hash: str) -> dict[str, Any] | None:
        return self._get("probe", f"{harness_hash}.json", shape=records.ProbeReport)

    def write_probe_report(self, harness_hash: str, report: dict[str, Any]) -> None:
        self._put(report, "probe", f"{harness_hash}.json")

    def teacher_call(self, key: str) -> dict[str, Any] | None:
        return self._get("teacher", f"{key}.json", shape=records.TeacherCall)

    def write_teacher_call(self, key: str, call: dict[str, Any]) -> None:
        self._put(call, "teacher", f"{key}.json")

    def teacher_calls(self) -> list[dict[str, Any]]:
        base = self.root / "teacher"
        if not base.is_dir():
            return []
        return [read_record(p, records.TeacherCall) for p in sorted(base.glob("*.json"))]

    def write_round(self, index: int, record: dict[str, Any]) -> None:
        self._put(record, "rounds", f"{index:03d}.json")

    def rounds(self) -> list[dict[str, Any]]:
        base = self.root / "rounds"
        if not base.is_dir():
            return []
        return [read_record(p, records.Round) for p in sorted(base.glob("*.json"))]

    def selected(self) -> dict[str, Any] | None:
        return self._get("selected.json", shape=records.Selected)

    def write_selected(self, selected: dict[str, Any]) -> None:
        self._put(selected, "selected.json")

    def oneshot(self) -> dict[str, Any] | None:
        return self._get("oneshot.json", shape=records.Oneshot)

    def write_oneshot(self, oneshot: dict[str, Any]) -> None:
        self._put(oneshot, "oneshot.json")

    def gepa(self) -> dict[str, Any] | None:
        return self._get("gepa.json")

    def write_gepa(self, row: dict[str, Any]) -> None:
        self._put(row, "gepa.json")

    def gepa_store(self) -> BuildStore:
        """The GEPA comparator's own calls and scores, apart from the build's."""
        return BuildStore(self.root / "gepa")

    def test(self) -> dict[str, Any] | None:
        return self._get("test.json", shape=records.TestScores)

    def write_test(self, test: dict[str, Any]) -> None:
        self._put(test, "test.json")
