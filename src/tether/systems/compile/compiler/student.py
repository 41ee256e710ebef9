"""The compile's student: a `tether.models` Model behind `student(prompt, image) -> reply`.

    student = ModelStudent(model, ledger=Ledger(BudgetSpec(total=5000)), sink=rows.append)
    reply = student("Question: ...", None)

Every call takes the one charged call path (`tether.context.calls`) a trial's calls take,
under the role `student`, so it is budgeted and recorded the same way (see the class).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tether.context import charged_generate
from tether.core import BudgetExhausted, BudgetSpec, Ledger
from tether.models import CallRecord, Completion, GenerateParams, Model, sample_concurrency
from tether.systems.compile.harness import Harness
from tether.systems.compile.student import STUDENT_ROLE, generated_tokens, student_message

__all__ = ["ModelStudent"]


class ModelStudent:
    """`student(prompt, image) -> reply` over a `tether.models` Model: one fresh user
    message per call, fixed seed, generated tokens counted (prefill excluded).

    Every call takes the one charged call path (`tether.context.calls`) under the role
    `student`: `ledger` reserves the call's whole `max_tokens` (times its samples) before
    it is made and settles with the usage after, so the recorded spend never exceeds the
    ledger's cap, with any number of items in flight. A call that does not fit is not
    made: `BudgetExhausted` says why (and `stopped` keeps it), and the scorer records the
    item as a budget stop. Each call's record (role, request hash, usage, latency,
    sampling parameters, and the split, key and item it was made for) goes to `sink`.
    """

    def __init__(self, model: Model, *, seed: int = 0, ledger: Ledger | None = None,
                 sink: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.model = model
        self.seed = seed
        self.max_tokens = 64
        self.temperature = 0.0
        self.output_tokens = 0
        self.calls = 0
        #: the student's budget: generated tokens (output + reasoning), as tokens/item
        self.ledger = ledger if ledger is not None else Ledger(BudgetSpec())
        self.sink = sink
        #: why the budget refused a call (None until it does)
        self.stopped: str | None = None
        #: items scored at once: the endpoint's `concurrency` (in-process models: 1)
        self.concurrency = sample_concurrency(model)
        self._lock = threading.Lock()
        # An item runs on one thread from start to end: its own calls and tokens are
        # counted per thread, so concurrent items do not read each other's.
        self._mine = threading.local()

    def counts(self) -> tuple[int, int]:
        """(student calls, generated tokens) made so far on this thread."""
        return getattr(self._mine, "calls", 0), getattr(self._mine, "tokens", 0)

    def tokens_used(self) -> int:
        return self.ledger.charged(STUDENT_ROLE)

    @contextmanager
    def at(self, split: str, key: str, item_id: str) -> Iterator[None]:
        """Calls made on this thread inside are recorded as made for this item."""
        self._mine.where = {"split": split, "key": key, "item_id": item_id}
        try:
            yield
        finally:
            self._mine.where = {}

    def configure(self, harness: Harness) -> None:
        self.decode(max_tokens=harness.decode.max_tokens,
                    temperature=harness.decode.temperature)

    def decode(self, *, max_tokens: int, temperature: float) -> None:
        self.max_tokens = max_tokens
        self.temperature = temperature

    def sample(self, prompt: str, image: bytes | None, *, n: int = 1,
               temperature: float | None = None) -> list[Completion]:
        """n samples of one call (a baseline's `BaselineStudent`)."""
        params = GenerateParams(
            max_tokens=self.max_tokens, seed=self.seed,
            temperature=self.temperature if temperature is None else temperature)
        log: list[CallRecord] = []
        try:
            completions = charged_generate(self.ledger, log, self.model, STUDENT_ROLE,
                                           student_message(prompt, image), params, n=n,
                                           whole=True)
        except BudgetExhausted:
            reason = (f"student token budget of {self.ledger.spec.total} reached: "
                      f"{self.tokens_used()} used, a call of {n} x {self.max_tokens} "
                      "tokens does not fit")
            with self._lock:
                self.stopped = self.stopped or reason
            raise BudgetExhausted(reason) from None
        finally:
            self._record(log)
        tokens = generated_tokens(completions)
        with self._lock:
            self.calls += 1
            self.output_tokens += tokens
        self._mine.calls = getattr(self._mine, "calls", 0) + 1
        self._mine.tokens = getattr(self._mine, "tokens", 0) + tokens
        return completions

    def _record(self, log: list[CallRecord]) -> None:
        if self.sink is None:
            return
        where = getattr(self._mine, "where", {})
        for record in log:
            # the prompt and reply are in the item's outcome (calls) already
            row = {k: v for k, v in record.to_json().items() if k not in ("messages", "output")}
            self.sink({**row, **where})

    def __call__(self, prompt: str, image: bytes | None) -> str:
        return self.sample(prompt, image)[0].text
