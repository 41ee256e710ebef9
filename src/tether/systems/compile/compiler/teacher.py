"""The teacher: a `tether.models` Model called under a token budget, every call recorded.

    teacher = TeacherClient(model, build_store, seed=3, temperature=0.7, max_tokens=2048)
    reply = teacher.call("r01-s0", prompt)      # TeacherReply(text, error, tokens)

Each call is recorded as the build's `teacher_call` event (prompt, reply, input and output
tokens, cost where the provider reports one: tether's backends report none, so null,
latency, error). A key already recorded is answered from its record without calling the
model: `tether compile --resume` replays the teacher's earlier replies, so a resumed
build makes the decisions it would have made. An API error (after the backend's own
retries) is a reply with `error` set: the round is recorded as an error and the build
goes on.

Calls take the one charged call path (`tether.context.calls`): `token_budget` is a
`Ledger` of input + output tokens that reserves each call's `max_tokens` plus a high
estimate of its prompt before the call, so the recorded spend never exceeds it. A call
that does not fit is not made: its reply carries the refusal as `error`, `stopped` says
why, and the build loop stops its rounds there. Each row keeps the call records (role,
request hash, usage, latency) a trial keeps.
The teacher's JSON object is read from a reply by `tether.models.replies.json_object`.

`round0_from` (the shared-H0 mode, compiler/plan.py): the round-0 calls (keys `r00-...`)
are answered from another build's records, never made: that build's teacher wrote H0.
A round-0 prompt that build never sent is an error (the two builds diverged before H0,
which the same splits and scores rule out), never a second H0. Their tokens are charged
to this build's ledger too, so both protocols revise under the same remaining budget;
they stay recorded, and counted in cost, in the build that made them.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from tether.context import charged_generate
from tether.core import BudgetExhausted, BudgetSpec, Ledger
from tether.errors import TetherError
from tether.models import CallRecord, GenerateParams, Model, ModelError, Usage
from tether.systems.compile.compiler.build_records import BuildRecords

__all__ = ["TEACHER_ROLE", "TeacherClient", "TeacherReply"]

TEACHER_ROLE = "teacher"
#: the keys of round 0's calls (loop.py: `r00-s{restart}`)
ROUND0_PREFIX = "r00-"


@dataclass(frozen=True)
class TeacherReply:
    key: str
    text: str | None  # None when the call failed
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0


class TeacherClient:
    """Budgeted, recorded, replayable teacher calls (see the module docstring)."""

    def __init__(self, model: Model, store: BuildRecords, *, seed: int, temperature: float,
                 max_tokens: int, token_budget: int | None = None,
                 round0_from: BuildRecords | None = None) -> None:
        self.model = model
        self.store = store
        self.round0_from = round0_from
        self.seed = seed
        self.temperature = temperature
        self.max_tokens = max_tokens
        # input + output: the teacher's prompts (manual, traces) are most of its cost
        self.ledger = Ledger(BudgetSpec(total=token_budget, count="input+output"))
        shared = [] if round0_from is None else [
            r for r in round0_from.teacher_calls() if str(r["key"]).startswith(ROUND0_PREFIX)]
        for row in [*store.teacher_calls(), *shared]:  # spent already (resumed, or H0's)
            self.ledger.settle(TEACHER_ROLE, 0, Usage(int(row.get("input_tokens", 0)),
                                                      int(row.get("output_tokens", 0))))
        #: why the teacher can make no more calls (None while it can)
        self.stopped: str | None = None

    def tokens_used(self) -> int:
        return self.ledger.charged(TEACHER_ROLE)

    def call(self, key: str, prompt: str) -> TeacherReply:
        if self.round0_from is not None and key.startswith(ROUND0_PREFIX):
            return self._shared(key, prompt)
        recorded = self.store.teacher_call(key)
        if recorded is not None and recorded.get("prompt") == prompt:
            if recorded.get("refused"):
                self.stopped = recorded["error"]
            return _reply(recorded)
        row: dict[str, Any] = {"key": key, "prompt": prompt, "model": str(self.model.model_id),
                               "seed": self._seed(key), "temperature": self.temperature,
                               "max_tokens": self.max_tokens, "reply": None, "error": None,
                               "input_tokens": 0, "output_tokens": 0, "cost": None,
                               "latency_s": 0.0, "calls": []}
        log: list[CallRecord] = []
        params = GenerateParams(max_tokens=self.max_tokens, temperature=self.temperature,
                                seed=row["seed"])
        started = time.perf_counter()
        try:
            completion = charged_generate(self.ledger, log, self.model, TEACHER_ROLE,
                                          [{"role": "user", "content": prompt}], params)[0]
            row.update(reply=completion.text,
                       input_tokens=completion.usage.input_tokens,
                       output_tokens=completion.usage.output_tokens
                       + completion.usage.reasoning_tokens)
        except BudgetExhausted:
            self.stopped = (f"teacher token budget of {self.ledger.spec.total} reached: "
                            f"{self.tokens_used()} used, the next call does not fit")
            row.update(error=self.stopped, refused=True)
        except ModelError as exc:
            row["error"] = f"{type(exc).__name__}: {exc}"
        row["latency_s"] = round(time.perf_counter() - started, 3)
        # the trial's call record without the prompt and reply the row already holds
        row["calls"] = [{k: v for k, v in c.to_json().items() if k not in ("messages", "output")}
                        for c in log]
        self.store.write_teacher_call(key, row)
        return _reply(row)

    def _shared(self, key: str, prompt: str) -> TeacherReply:
        """A round-0 call answered from the build that wrote H0 (see the docstring)."""
        assert self.round0_from is not None
        recorded = self.round0_from.teacher_call(key)
        if recorded is None or recorded.get("prompt") != prompt:
            raise TetherError(f"{self.store.name}: the shared H0's round-0 call {key} is not "
                              f"in {self.round0_from.name} with this prompt")
        if recorded.get("refused"):
            self.stopped = recorded["error"]
        return _reply(recorded)

    def _seed(self, key: str) -> int:
        # a different seed per build and per call, the same on a resumed build
        digest = hashlib.sha256(f"{self.seed}|{key}".encode()).digest()
        return int.from_bytes(digest[:4], "big") % 2**31


def _reply(row: dict[str, Any]) -> TeacherReply:
    return TeacherReply(row["key"], row.get("reply"), row.get("error"),
                        int(row.get("input_tokens", 0)), int(row.get("output_tokens", 0)))
