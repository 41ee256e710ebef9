"""A `generate` bound to a model object and a call log, for instrument unit tests.

Inside tether the trial context (or a rescore's log) binds `generate`; these tests bind
one to a scripted test double directly, recording every call the same way."""

from __future__ import annotations

from tether.instruments.base import Generate, InstrumentEnv
from tether.models.base import Completion, GenerateParams, Message, Model
from tether.models.recording import CallRecord, RecordingModel


def bound_env(model: Model, log: list[CallRecord] | None = None, *, role: str = "reviewer",
              sandbox: str = "bwrap") -> InstrumentEnv:
    calls = log if log is not None else []

    def generate(messages: list[Message], *, max_tokens: int = 1024,
                 temperature: float = 0.0, **named_model: object) -> list[Completion]:
        # a `model=SPEC` the instrument names is ignored: this double serves every call
        params = GenerateParams(max_tokens=max_tokens, temperature=temperature, seed=0)
        return RecordingModel(model, calls, role=role).generate(messages, params, n=1,
                                                                role=role)

    bound: Generate = generate  # type: ignore[assignment]
    return InstrumentEnv(sandbox=sandbox, generate=bound)
