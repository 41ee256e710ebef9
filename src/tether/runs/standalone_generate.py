"""A `generate` for model-backed instruments used outside a trial (`tether rescore`).

Inside a trial the context binds `generate` to its ledger and call log. Outside one the
same discipline holds: every call is made through a `RecordingModel` into a log its
caller keeps (and stores with what it scored), under a role, with fixed sampling
(seed 0, sample i at seed + i): nothing owns a private, unrecorded model handle.
There is no budget to charge; a metric's calls are never charged to any strategy.
"""

from __future__ import annotations

import threading

from tether.errors import ConfigError
from tether.instruments import Generate
from tether.models import (
    CallRecord,
    Completion,
    GenerateParams,
    Message,
    Model,
    RecordingModel,
    parse_model,
)


def recorded_generate(log: list[CallRecord], *, role: str) -> Generate:
    """`generate` recording every call into `log` under `role`; `model` must be named."""
    models: dict[str, Model] = {}
    lock = threading.Lock()

    def generate(messages: list[Message], *, model: str | None = None,
                 max_tokens: int = 1024, temperature: float = 0.0) -> list[Completion]:
        if model is None:
            raise ConfigError("a model-backed instrument outside a trial needs its model named",
                              hint="e.g. screenshot_judge;model=SPEC")
        with lock:
            if model not in models:
                models[model] = parse_model(model)
        recorder = RecordingModel(models[model], log, role=role)
        return recorder.generate(messages, GenerateParams(max_tokens=max_tokens,
                                                          temperature=temperature, seed=0),
                                 n=1, role=role)

    return generate
