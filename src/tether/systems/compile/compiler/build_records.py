"""What one build of a compile records: its events in the compile's run (compiler/run.py).

    records = run.build(0)                  # scope "0"; run.build(0).gepa_store(): "0/gepa"
    records.write_round(3, {...}); records.rounds()
    records.write_teacher_call("r01", {...}); records.teacher_call("r01")

Each record is an event keyed `SCOPE/NAME` (the latest row of a key counts):
- `teacher_call` (NAME: the call's key): prompt, reply, tokens, error, the call records a
  trial keeps; the prompt and the reply are the run's content-addressed artifacts (the
  row keeps their digests, the reader puts the texts back);
- `round` (NAME: its index, 000...): the round's record (hash, verdict, gate decision);
- `proposal` (NAME: its hash): the harness document is an artifact whose digest is the
  harness hash;
- `verdict`, `probe_report` (NAME: the harness hash): its admissibility verdict, and the
  probe report the teacher sees;
- `selected`, `oneshot`, `gepa`, `test` (key: the scope): the frozen selection (its
  harness also an artifact, `DIR/artifacts/HH/HASH.json`: a file `tether harness run`
  takes), the one-shot harness, GEPA's search, the test scores of every arm.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tether.systems.compile.compiler import records
from tether.systems.compile.harness import canonical_json

if TYPE_CHECKING:
    from tether.systems.compile.compiler.run import CompileRun

__all__ = ["BuildRecords"]

_TEXT = "text/plain"
_JSON = "application/json"


class BuildRecords:
    """One build's records (see the module docstring)."""

    def __init__(self, run: CompileRun, scope: str) -> None:
        self.run = run
        self.scope = scope

    @property
    def name(self) -> str:
        """How messages name the build."""
        return f"{self.run.root} (build {self.scope})"

    def _key(self, name: str | None) -> str:
        return self.scope if name is None else f"{self.scope}/{name}"

    def _get(self, kind: str, name: str | None = None,
             shape: type[records.Record] = records.Record) -> Any:
        return self.run.event(kind, self._key(name), shape)

    def _put(self, kind: str, row: Any, name: str | None = None) -> None:
        self.run.record(kind, self._key(name), row)

    # -- documents (artifacts) ----------------------------------------------------------
    def _blob(self, text: str, kind: str, media_type: str) -> str:
        return self.run.store.put_blob(text.encode("utf-8"), kind=kind, media_type=media_type)

    def _text(self, digest: str | None) -> str | None:
        if digest is None:
            return None
        path = self.run.store.artifact_path(digest)
        if path is None or not path.is_file():
            raise records.damaged_event(self.run.root, f"{self.run.root}",
                                        f"artifact {digest} is missing")
        return path.read_text(encoding="utf-8")

    def proposal(self, harness_hash: str) -> dict[str, Any] | None:
        if self._get("proposal", harness_hash) is None:
            return None
        text = self._text(harness_hash)
        return None if text is None else dict(json.loads(text))

    def write_proposal(self, harness_hash: str, document: dict[str, Any]) -> None:
        # the canonical serialization: its digest is the harness hash
        self._blob(canonical_json(document), "harness", _JSON)
        self._put("proposal", {"hash": harness_hash}, harness_hash)

    # -- the loop's records ---------------------------------------------------------
    def verdict(self, harness_hash: str) -> dict[str, Any] | None:
        return self._get("verdict", harness_hash, records.Verdict)

    def write_verdict(self, harness_hash: str, verdict: dict[str, Any]) -> None:
        self._put("verdict", verdict, harness_hash)

    def probe_report(self, harness_hash: str) -> dict[str, Any] | None:
        return self._get("probe_report", harness_hash, records.ProbeReport)

    def write_probe_report(self, harness_hash: str, report: dict[str, Any]) -> None:
        self._put("probe_report", report, harness_hash)

    def teacher_call(self, key: str) -> dict[str, Any] | None:
        row = self._get("teacher_call", key, records.TeacherCall)
        return None if row is None else self._with_texts(row)

    def write_teacher_call(self, key: str, call: dict[str, Any]) -> None:
        row = {k: v for k, v in call.items() if k not in ("prompt", "reply")}
        row["prompt_digest"] = None if call.get("prompt") is None else self._blob(
            call["prompt"], "prompt", _TEXT)
        row["reply_digest"] = None if call.get("reply") is None else self._blob(
            call["reply"], "reply", _TEXT)
        self._put("teacher_call", row, key)

    def _with_texts(self, row: dict[str, Any]) -> dict[str, Any]:
        return {**row, "prompt": self._text(row.get("prompt_digest")),
                "reply": self._text(row.get("reply_digest"))}

    def teacher_calls(self) -> list[dict[str, Any]]:
        return [self._with_texts(r)
                for r in self.run.events_in("teacher_call", self.scope, records.TeacherCall)]

    def write_round(self, index: int, record: dict[str, Any]) -> None:
        self._put("round", record, f"{index:03d}")

    def rounds(self) -> list[dict[str, Any]]:
        return list(self.run.events_in("round", self.scope, records.Round))

    # -- what the build ends with -----------------------------------------------------
    def selected(self) -> dict[str, Any] | None:
        return self._get("selected", shape=records.Selected)

    def write_selected(self, selected: dict[str, Any]) -> None:
        # the deployed harness as a file of its own: DIR/artifacts/HH/HASH.json
        self._blob(canonical_json(selected["document"]), "harness", _JSON)
        self._put("selected", selected)

    def oneshot(self) -> dict[str, Any] | None:
        return self._get("oneshot", shape=records.Oneshot)

    def write_oneshot(self, oneshot: dict[str, Any]) -> None:
        self._put("oneshot", oneshot)

    def gepa(self) -> dict[str, Any] | None:
        return self._get("gepa")

    def write_gepa(self, row: dict[str, Any]) -> None:
        self._put("gepa", row)

    def gepa_store(self) -> BuildRecords:
        """The GEPA comparator's own teacher calls, apart from the build's."""
        return BuildRecords(self.run, f"{self.scope}/gepa")

    def test(self) -> dict[str, Any] | None:
        return self._get("test", shape=records.TestScores)

    def write_test(self, test: dict[str, Any]) -> None:
        self._put("test", test)
