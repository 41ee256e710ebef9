"""One build's compile loop: bare floor, round 0 with restarts, reflection A or B, freeze.

    loop = BuildLoop(env, build_store, teacher)
    selected = loop.run()      # the frozen selection (also recorded: `selected`)

The steps (the paper's Tables 15 and 25):
1. The bare harness is scored on probe and validation: the first incumbent.
2. Round 0: the teacher writes H0 from the manual, the setting with resource examples on
   3 probe items, and the bare probe score. While H0 is unparseable, inadmissible
   (smoke-broken hooks included), the call failed or (`restart_rejected_h0`, the
   default) H0 was scored and the gate rejected it (below the bare floor), up to
   `restarts` new round-0 calls, each told why the last one was not kept.
3. Reflection rounds 1..rounds under protocol A (edit the latest proposal) or B (edit the
   incumbent; a returned incumbent is a no-op; two consecutive no-ops stop the build).
   Either may first request one probe trace. A failed call or an unparseable reply is
   the round's record (`error` / `unparseable`), never a no-op. A call the teacher's
   token budget refuses is the round's `error`, and no further round is asked:
   the selection's `stopped` names the budget. So does a proposal whose probe or
   validation items the student's token budget left unscored (scoring.py): the round is
   an `error` (no gate on an incomplete split), `stopped` and `student_stopped` say why;
   when it is the bare floor itself, no teacher call is made and bare is selected.
4. Every parsed proposal is written, checked for admissibility, and only if admissible
   scored on probe (its report is the next round's evidence) and validation; the gate
   (gate.py) decides. 5. The incumbent is frozen: the build's `selected` record.

The teacher's calls are made one at a time, by design: each needs the reply before it
(a restart is asked only after an unusable proposal and is told why; a trace answer
carries the trace the round's first reply asked for; a reflection round reads every
earlier round's outcome). Nothing in a round could be asked in parallel without asking
for different proposals; the concurrency is in the scoring (scoring.py).

Teacher calls and scores are read back from the compile's run when present, so
running the loop again after a kill replays the same decisions without calling the
teacher or the student again for anything already done.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from tether.models import json_object
from tether.systems.compile.admissibility import check_harness
from tether.systems.compile.compiler.build_records import BuildRecords
from tether.systems.compile.compiler.evidence import paired_traces, probe_report, trace_of
from tether.systems.compile.compiler.gate import Incumbent, gate
from tether.systems.compile.compiler.prompts import (
    TRACE_REQUEST_KEY,
    changed_components,
    reflection_a_prompt,
    reflection_b_prompt,
    round0_prompt,
    trace_answer,
)
from tether.systems.compile.compiler.scoring import ScoringEnv, SplitScore
from tether.systems.compile.compiler.teacher import TeacherClient, TeacherReply
from tether.systems.compile.harness import Harness, bare_harness

__all__ = ["BuildEnv", "BuildLoop"]


@dataclass
class BuildEnv(ScoringEnv):
    """What every build of a compile shares: the scoring, and the loop's own settings."""

    rounds: int
    protocol: str
    restarts: int
    trace_requests: bool
    #: a scored H0 the gate rejects is restarted too (the restart rule, see _round0)
    restart_rejected_h0: bool = True


class BuildLoop:
    def __init__(self, env: BuildEnv, store: BuildRecords, teacher: TeacherClient, *,
                 shared_h0: dict[str, str] | None = None) -> None:
        self.env = env
        #: the shared-H0 mode (compiler/plan.py): which build wrote H0 and which read it
        self.shared_h0 = shared_h0
        self.store = store
        self.teacher = teacher
        self.records: list[dict[str, Any]] = []
        self.documents: dict[str, dict[str, Any]] = {}
        self.probes: dict[str, SplitScore] = {}
        self.reports: dict[str, dict[str, Any]] = {}
        bare = bare_harness(env.setting.name)
        self.bare = bare
        self.incumbent: Incumbent
        self.latest: dict[str, Any] | None = None  # the last parsed proposal's record
        self.latest_doc: dict[str, Any] | None = None
        self.floor_infra_errors = 0  # the bare floor's validation infra errors
        #: why the student's budget left a split unscored (None while it has not)
        self.student_stopped: str | None = None

    # -- scoring -------------------------------------------------------------------
    def _score(self, harness: Harness) -> tuple[SplitScore, SplitScore | None]:
        """Probe and validation scores; validation None when the student's budget left
        probe items unscored (`student_stopped` says why; no report is written)."""
        # one pool for both splits (compiler/pool.py): validation items start while the
        # probe split's last ones are still out, unless the budget stopped probe
        scorer = self.env.scorer
        probe, validation = scorer.score_all([
            scorer.job(harness, "probe", self.env.splits["probe"]),
            scorer.job(harness, "validation", self.env.splits["validation"], after=0)])
        if probe.stopped:
            self.student_stopped = probe.stopped
            return probe, None
        self.probes[harness.hash] = probe
        report = self.store.probe_report(harness.hash)
        if report is None:
            report = probe_report(self.env.setting, self.env.splits["probe"], probe)
            self.store.write_probe_report(harness.hash, report)
        self.reports[harness.hash] = report
        self.student_stopped = validation.stopped
        return probe, validation

    def _stopped(self) -> str | None:
        """Why no further teacher round is asked (None: rounds go on)."""
        return self.teacher.stopped or self.student_stopped

    def _verdict(self, document: dict[str, Any]) -> dict[str, Any]:
        try:
            cached = self.store.verdict(Harness.model_validate(document).hash)
        except ValueError:
            cached = None  # not a harness: check_harness names the schema violations
        if cached is not None:
            return cached
        report = check_harness(document, self.env.setting, seed=self.env.seed,
                               sizes=self.env.sizes)
        verdict = report.to_json()
        if report.hash is not None:
            self.store.write_verdict(report.hash, verdict)
        return verdict

    # -- the loop ------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        probe, validation = self._score(self.bare)
        self.documents[self.bare.hash] = self.bare.document()
        if validation is None or validation.stopped:
            # no floor to gate against: bare is kept, and no teacher call is made
            return self._freeze(None, None, self.student_stopped or "")
        self.floor_infra_errors = validation.infra_errors
        self.incumbent = Incumbent(self.bare.hash, self.bare.document(), validation.mean, True)
        h0 = self._round0(probe.mean)
        stopped = "rounds"
        noops = 0
        for r in range(1, self.env.rounds + 1):
            if (why := self._stopped()) is not None:
                stopped = why
                break
            record = self._reflect(r)
            noops = noops + 1 if record["decision"] == "no-op" else 0
            if noops >= 2:
                stopped = "two consecutive no-ops"
                break
        if stopped == "rounds" and (why := self._stopped()) is not None:
            stopped = why  # the last round's call was refused, or its split stopped
        return self._freeze(self.incumbent.validation, h0, stopped)

    def _freeze(self, validation: float | None, h0: dict[str, Any] | None,
                stopped: str) -> dict[str, Any]:
        is_bare = True if validation is None else self.incumbent.is_bare
        chosen = self.bare.hash if validation is None else self.incumbent.hash
        selected = {"hash": chosen, "document": self.documents[chosen],
                    "validation": validation, "is_bare": is_bare,
                    "h0": h0, "stopped": stopped, "student_stopped": self.student_stopped,
                    "protocol": self.env.protocol, "shared_h0": self.shared_h0,
                    "rounds": len(self.records), "frozen_at": time.time()}
        self.store.write_selected(selected)
        return selected

    def _round0(self, bare_probe: float) -> dict[str, Any] | None:
        note = ""
        record: dict[str, Any] = {}
        for restart in range(self.env.restarts + 1):
            prompt = round0_prompt(self.env.setting, self.env.splits["probe"], bare_probe,
                                   len(self.env.splits["probe"]), note,
                                   attempt=restart + 1)
            reply = self.teacher.call(f"r00-s{restart}", prompt)
            record = self._propose(0, restart, reply, parent=self.bare.hash,
                                   parent_doc=self.bare.document())
            final = ("accept", "tie") if self.env.restart_rejected_h0 else (
                "accept", "reject", "tie")
            if record["decision"] in final or self._stopped():
                break
            if record["decision"] == "reject":
                # the restart rule: a scored H0 below the bare floor is replaced too. The
                # note says what the protocol shows of any proposal (the gate's decision,
                # probe scores), never a validation number.
                note = ("## Your previous round-0 proposal was rejected by the gate (it "
                        "scored below the bare student on the validation split); its probe "
                        f"score: {record['probe']:.3f}, the bare student's: {bare_probe:.3f}")
                continue
            note = (f"## Your previous round-0 proposal was unusable ({record['decision']})\n"
                    + "\n".join(f"- {v['check']}: {v['detail']}"
                                for v in record.get("violations") or [])
                    + ("\n" + record["error"] if record.get("error") else ""))
        if record.get("admissible"):
            return {"hash": record["hash"], "document": self.documents[record["hash"]],
                    "validation": record["validation"], "probe": record["probe"]}
        return None

    def _reflect(self, r: int) -> dict[str, Any]:
        key = f"r{r:02d}"
        if self.env.protocol == "B":
            base_hash = self.incumbent.hash
            prompt = reflection_b_prompt(
                self.env.setting, self.incumbent.document, base_hash,
                self.reports.get(base_hash), *self._rejection(), self._public_records(), r)
        else:
            base_hash, prompt = self._prompt_a(r)
        reply = self.teacher.call(key, prompt)
        trace_item = self._trace_request(reply)
        if trace_item is not None:
            reply = self.teacher.call(f"{key}-trace",
                                      trace_answer(prompt, trace_item,
                                                   self._trace(base_hash, trace_item)))
        parent_doc = (self.documents.get(base_hash) if self.env.protocol == "B"
                      or self.latest_doc is None else self.latest_doc)
        record = self._propose(r, 0, reply, parent=base_hash, parent_doc=parent_doc,
                               trace_item=trace_item)
        return record

    def _prompt_a(self, r: int) -> tuple[str, str]:
        latest, doc = self.latest, self.latest_doc
        withheld = latest is not None and doc is None
        if withheld:  # a refused hard-coded proposal: its verdict, then the incumbent
            prompt = reflection_a_prompt(self.env.setting, latest or {}, self.incumbent.document,
                                         self.reports.get(self.incumbent.hash), None,
                                         self._public_records(), self.incumbent.hash, r,
                                         withheld=True)
            return self.incumbent.hash, prompt
        if latest is None or doc is None:  # no parsed proposal yet: edit the incumbent
            latest = {"round": "bare", "hash": self.incumbent.hash, "admissible": True}
            doc = self.incumbent.document
        paired = None
        h = latest.get("hash")
        if h in self.probes:
            before = self._preceding_scored(h)
            if before is not None:
                paired = paired_traces(self.env.setting, self.env.splits["probe"],
                                       self.probes[before], self.probes[h])
        prompt = reflection_a_prompt(self.env.setting, latest, doc,
                                     self.reports.get(h) if h else None, paired,
                                     self._public_records(), self.incumbent.hash, r)
        return h or self.incumbent.hash, prompt

    def _preceding_scored(self, h: str) -> str | None:
        """The scored proposal before the one with hash h (bare before the first)."""
        scored = [r["hash"] for r in self.records if r.get("probe") is not None]
        before = [x for x in scored[:scored.index(h)] if x != h] if h in scored else scored
        return before[-1] if before else (self.bare.hash if h != self.bare.hash else None)

    def _rejection(self) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        for record in reversed(self.records):
            if record["decision"] in ("accept", "no-op"):
                return None, None
            if record["decision"] in ("reject", "tie", "inadmissible"):
                paired = None
                h = record.get("hash")
                if h in self.probes and self.incumbent.hash in self.probes:
                    paired = paired_traces(self.env.setting, self.env.splits["probe"],
                                           self.probes[self.incumbent.hash], self.probes[h],
                                           limit=5)
                return _public(record), paired
        return None, None

    def _public_records(self) -> list[dict[str, Any]]:
        return [_public(r) for r in self.records]

    def _trace_request(self, reply: TeacherReply) -> str | None:
        if not self.env.trace_requests or not reply.text:
            return None
        obj = json_object(reply.text)
        if obj is not None and TRACE_REQUEST_KEY in obj and "prompts" not in obj:
            return str(obj[TRACE_REQUEST_KEY])
        return None

    def _trace(self, harness_hash: str, item_id: str) -> dict[str, Any] | None:
        probe = self.probes.get(harness_hash)
        item = next((i for i in self.env.splits["probe"] if i.item_id == item_id), None)
        if probe is None or item is None or item_id not in probe.outcomes:
            return None  # only probe items of a scored harness can be traced
        return trace_of(item, probe.outcomes[item_id], self.env.setting.gold(item),
                        probe.scores.get(item_id))

    # -- one proposal --------------------------------------------------------------
    def _propose(self, r: int, restart: int, reply: TeacherReply, *, parent: str,
                 parent_doc: dict[str, Any] | None,
                 trace_item: str | None = None) -> dict[str, Any]:
        record: dict[str, Any] = {"round": r, "restart": restart, "parent": parent,
                                  "hash": None, "admissible": None, "violations": [],
                                  "probe": None, "validation": None, "changed": [],
                                  "trace_request": trace_item, "teacher_key": reply.key,
                                  "error": None}
        document = json_object(reply.text) if reply.text else None
        if reply.error is not None:
            record.update(decision="error", error=reply.error)
        elif document is None or TRACE_REQUEST_KEY in document:
            record.update(decision="unparseable",
                          error="no harness JSON object in the teacher's reply")
        else:
            self._judge(record, document, parent_doc, r)
        record["incumbent"] = self.incumbent.hash
        self.store.write_round(len(self.records), record)
        self.records.append(record)
        return record

    def _judge(self, record: dict[str, Any], document: dict[str, Any],
               parent_doc: dict[str, Any] | None, r: int) -> None:
        verdict = self._verdict(document)
        record.update(hash=verdict["hash"], admissible=verdict["admissible"],
                      violations=verdict["violations"])
        if verdict["hash"] is not None:
            document = Harness.model_validate(document).document()
            self.store.write_proposal(verdict["hash"], document)
            self.documents[verdict["hash"]] = document
            record["changed"] = changed_components(parent_doc, document)
        self.latest, self.latest_doc = record, document
        if any(v.get("check") == "hardcoded" for v in verdict["violations"]):
            # never echoed: as written it carries held-out gold, and with the gold cut
            # out the cuts would mark which strings were gold (A edits the incumbent)
            self.latest_doc = None
        if (self.env.protocol == "B" and r > 0 and verdict["hash"] == self.incumbent.hash):
            record["decision"] = "no-op"  # the incumbent returned unchanged
            return
        if not verdict["admissible"]:
            record["decision"] = "inadmissible"
            return
        harness = Harness.model_validate(document)
        probe, validation = self._score(harness)
        if validation is None or validation.stopped:
            # an incomplete split is not gated: the round is the budget's error
            record.update(decision="error", error=self.student_stopped)
            return
        record.update(probe=probe.mean, validation=validation.mean,
                      infra_errors=validation.infra_errors)
        decision = gate(self.incumbent, True, validation.mean,
                        infra_errors=validation.infra_errors,
                        floor_infra_errors=self.floor_infra_errors)
        record["decision"] = decision
        if decision == "accept":
            self.incumbent = Incumbent(harness.hash, document, validation.mean, False)


def _public(record: dict[str, Any]) -> dict[str, Any]:
    """A round record without its validation numbers: what a teacher prompt may show."""
    return {k: v for k, v in record.items() if k not in ("validation", "infra_errors")}
