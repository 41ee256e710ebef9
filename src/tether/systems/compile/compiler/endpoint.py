"""The compile's student endpoint: the frozen student model behind the compile's budget.

    endpoint = StudentEndpoint(model, ledger=Ledger(BudgetSpec(total=5000)), record=rows.append)
    log: list[CallRecord] = []
    student = endpoint.session(max_tokens=64, temperature=0.0, modality="text",
                               where={"split": "probe", "key": h, "item_id": i}, log=log)
    reply = student("Question: ...", None)     # a StudentSession (systems/compile/student.py)

Every student call of a compile, whatever split, arm or build it is made for, takes the
one charged call path (`tether.context.charged_generate`) under the role `student`, with
a fixed seed: `ledger` reserves the call's whole `max_tokens` (times its samples) before
it is made and settles with the usage after, so the recorded spend never exceeds the
ledger's cap, with any number of items in flight. A call that does not fit is not made:
`BudgetExhausted` says why (and `stopped` keeps it), and the scorer records the item as a
budget stop. Each call's record goes to the item's `log` (its trial's calls) and, as it
is made, to `record` without the messages and reply (role, request hash, usage, latency,
sampling parameters, and the split, key and item it was made for): what a resumed
compile is charged with, a killed item's calls included.

A call that cannot connect to the endpoint at all after the model's own retries (an
`EndpointUnreachable` with `no_connection`: refused, no route, no such host) raises
`StudentUnreachable`, which no item catches: the scoring starts nothing more, the
command stops with the error, and the items not answered are not recorded as results, so
`--resume` asks them once the server is back (an item the student was never asked is no
evidence about a harness, like a budget stop). A timeout is the item's infra error as
before: the server is there, and a request too slow once may be too slow on every resume.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from tether.context import charged_generate
from tether.core import BudgetExhausted, BudgetSpec, Ledger
from tether.errors import TetherError
from tether.models import (
    DEFAULT_PARAMS,
    CallRecord,
    CertificateRefused,
    Completion,
    EndpointUnreachable,
    GenerateParams,
    Message,
    Model,
    sample_concurrency,
    wrapped_traits,
)
from tether.systems.compile.student import STUDENT_ROLE, Modality, StudentSession

__all__ = ["StudentEndpoint", "StudentUnreachable"]



def _down_hint(resume: str | None, exc: EndpointUnreachable) -> str:
    then = (f"{resume} (the items answered so far are kept)" if resume
            else "--resume and the run directory")
    # a refused certificate is a server that is there: its hint says what to change
    fix = (exc.hint if isinstance(exc, CertificateRefused) and exc.hint
           else "start the student's server (or correct the student spec)")
    return f"{fix}, then continue where this stopped: {then}"


class StudentUnreachable(TetherError):
    """The student endpoint could not be reached: the compile or deployment stops."""


class _HoldingSlots:
    """`inner` whose every call holds one of `slots` while the model answers it, and
    only then: the ledger's reservation before it and the call's record (its request
    hash) and settlement after it are made outside the slot, so a waiting call is sent
    as soon as a reply is in. (A whole reservation that does not fit waits for the calls
    in flight to settle, whatever holds the slots: `Ledger.reserve`.)"""

    def __init__(self, inner: Model, slots: threading.BoundedSemaphore) -> None:
        self.inner = inner
        self._slots = slots
        self.model_id, self.supports_tools, self.accepts_images, self.concurrency = (
            wrapped_traits(inner))

    def generate(self, messages: list[Message], params: GenerateParams = DEFAULT_PARAMS, *,
                 n: int = 1, role: str | None = None) -> list[Completion]:
        with self._slots:
            return self.inner.generate(messages, params, n=n, role=role)


class StudentEndpoint:
    """The compile's budgeted student model (see the module docstring)."""

    def __init__(self, model: Model, *, seed: int = 0, ledger: Ledger | None = None,
                 record: Callable[[dict[str, Any]], None] | None = None,
                 resume: str | None = None) -> None:
        self.model = model
        #: the command that continues this work, named when the endpoint is down
        self.resume = resume
        self.seed = seed
        #: the student's budget: generated tokens (output + reasoning), as tokens/item
        self.ledger = ledger if ledger is not None else Ledger(BudgetSpec())
        self.record = record
        #: why the budget refused a call (None until it does)
        self.stopped: str | None = None
        #: calls in flight at most: the endpoint's `concurrency` (in-process models: 1)
        self.concurrency = sample_concurrency(model)
        # held here whatever the model enforces itself: the scorer runs more items than
        # this at once, so that one item's commit never keeps the next call waiting
        self._held = _HoldingSlots(model, threading.BoundedSemaphore(max(self.concurrency, 1)))
        self._lock = threading.Lock()

    def tokens_used(self) -> int:
        return self.ledger.charged(STUDENT_ROLE)

    def session(self, *, max_tokens: int, temperature: float, modality: Modality,
                where: dict[str, Any], log: list[CallRecord]) -> StudentSession:
        """A student for one item: its calls go to `log` and are recorded with `where`."""

        def call(messages: list[Message], n: int, max_tokens: int,
                 temperature: float) -> list[Completion]:
            return self._call(messages, n, max_tokens, temperature, where, log)

        return StudentSession.calling(call, max_tokens=max_tokens, temperature=temperature,
                                      modality=modality)

    def _call(self, messages: list[Message], n: int, max_tokens: int, temperature: float,
              where: dict[str, Any], log: list[CallRecord]) -> list[Completion]:
        params = GenerateParams(max_tokens=max_tokens, seed=self.seed, temperature=temperature)
        made: list[CallRecord] = []
        try:
            return charged_generate(self.ledger, made, self._held, STUDENT_ROLE,
                                    messages, params, n=n, whole=True)
        except BudgetExhausted:
            reason = (f"student token budget of {self.ledger.spec.total} reached: "
                      f"{self.tokens_used()} used, a call of {n} x {max_tokens} "
                      "tokens does not fit")
            with self._lock:
                self.stopped = self.stopped or reason
            raise BudgetExhausted(reason) from None
        except EndpointUnreachable as exc:
            if not exc.no_connection:
                raise
            raise StudentUnreachable(f"the student endpoint could not be reached: {exc}",
                                     hint=_down_hint(self.resume, exc)) from None
        finally:
            log.extend(made)
            for record in made:
                if self.record is not None:
                    # the prompt and reply are in the item's trial record
                    row = {k: v for k, v in record.to_json().items()
                           if k not in ("messages", "output")}
                    self.record({**row, **where})
