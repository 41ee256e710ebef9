"""Build directories an earlier tether wrote: read, never written.

Until compiles became runs (compiler/run.py), `tether compile --out DIR` wrote a tree of
JSON files, which `tether report DIR` still reads and reports with every number it gave
then (`tests/fixtures/compile_build` is such a directory):

    DIR/config.json                       the resolved compile config
    DIR/scores/SPLIT/KEY.json             a harness's (or baseline's) finished scores on a
                                          split; KEY: its hash, HASH+INTERVENTION, or a
                                          baseline's key
    DIR/scores/SPLIT/KEY.partial.jsonl    its items scored so far (one line each)
    DIR/builds/K/proposals/HASH.json      every proposal the teacher made
    DIR/builds/K/verdicts/HASH.json       its admissibility verdict
    DIR/builds/K/probe/HASH.json          its probe report
    DIR/builds/K/teacher/KEY.json         each teacher call: prompt, reply, tokens, error
    DIR/builds/K/rounds/NNN.json          each round's record
    DIR/builds/K/selected.json            the frozen selection
    DIR/builds/K/oneshot.json             the one-shot teacher harness
    DIR/builds/K/gepa.json                the GEPA comparator's search and its best harness
    DIR/builds/K/gepa/...                 its reflection calls and scores
    DIR/builds/K/test.json                test scores of bare, the selection, the comparators
    DIR/student/calls.jsonl               every student call's record (later versions)
    DIR/result.json                       the summary `tether compile --json` printed

A file damaged by hand (cut short, not UTF-8, nested past the parser, the wrong shape)
is a ConfigError naming it, checked when it is read (compiler/records.py). Such a
directory cannot be resumed: a compile goes on in a run directory only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tether.systems.compile.compiler import records
from tether.systems.compile.compiler.config import CompileConfig
from tether.systems.compile.compiler.records import damaged, read_record
from tether.systems.compile.compiler.scoring import SplitScore
from tether.textio import JSONError, loads

__all__ = ["OldBuild", "OldBuildDir"]


class OldBuildDir:
    """A build directory of an earlier tether (see the module docstring)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def config(self) -> dict[str, Any] | None:
        return read_record(self.root / "config.json", CompileConfig)

    def result(self) -> dict[str, Any] | None:
        return read_record(self.root / "result.json", records.Record)

    def student_calls(self) -> list[dict[str, Any]]:
        """Every student call recorded (a line cut by a kill is left out)."""
        return _jsonl(self.root / "student" / "calls.jsonl")

    def records_student_calls(self) -> bool:
        """False for a directory written before student calls were recorded."""
        return (self.root / "student" / "calls.jsonl").is_file()

    def build(self, index: int) -> OldBuild:
        return OldBuild(self.root / "builds" / str(index))

    def build_indices(self) -> list[int]:
        base = self.root / "builds"
        if not base.is_dir():
            return []
        return sorted(int(p.name) for p in base.iterdir() if p.name.isdigit())

    def split_score(self, split: str, key: str) -> SplitScore | None:
        row = read_record(self.root / "scores" / split / f"{key}.json", records.Score)
        return SplitScore.from_json(row) if row is not None else None


def _jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSONL file, less a line a kill cut short; a line that parses but
    is not an object is damage, named."""
    if not path.is_file():
        return []
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        try:
            row = loads(line)
        except JSONError:
            continue
        if not isinstance(row, dict):
            raise damaged(path, f"line {number}: not a row of this file")
        rows.append(row)
    return rows


class OldBuild:
    """One build's files in an old build directory."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _get(self, *parts: str, shape: type[BaseModel] = records.Record) -> Any:
        return read_record(self.root.joinpath(*parts), shape)

    def selected(self) -> dict[str, Any] | None:
        return self._get("selected.json", shape=records.Selected)

    def test(self) -> dict[str, Any] | None:
        return self._get("test.json", shape=records.TestScores)

    def rounds(self) -> list[dict[str, Any]]:
        return self._all("rounds", records.Round)

    def teacher_calls(self) -> list[dict[str, Any]]:
        return self._all("teacher", records.TeacherCall)

    def _all(self, folder: str, shape: type[BaseModel]) -> list[dict[str, Any]]:
        base = self.root / folder
        if not base.is_dir():
            return []
        return [read_record(p, shape) for p in sorted(base.glob("*.json"))]

    def oneshot(self) -> dict[str, Any] | None:
        return self._get("oneshot.json", shape=records.Oneshot)

    def gepa(self) -> dict[str, Any] | None:
        return self._get("gepa.json")
