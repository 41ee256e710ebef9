"""ScriptedModel: a deterministic test double, not a model.

It answers from a list of responses (in order) or from a Python callable
`(messages, call_info) -> str | Completion`. Token counts are whitespace word
counts so budgets can be exercised in tests; they are not a real tokenizer's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from tether.models import (
    DEFAULT_PARAMS,
    Completion,
    GenerateParams,
    Message,
    ModelError,
    SampledModel,
    Usage,
    text_of,
)


@dataclass(frozen=True)
class CallInfo:
    """What a scripted callable is told about the call it answers."""

    call_number: int
    sample_index: int
    params: GenerateParams
    role: str | None


Script = Sequence[str | Completion] | Callable[[list[Message], CallInfo], str | Completion]


class ScriptedModel(SampledModel):
    """Test double answering from a script. Named so nobody mistakes it for a model."""

    def __init__(self, script: Script, *, model_id: str = "scripted",
                 supports_tools: bool = False, accepts_images: bool = False) -> None:
        self.model_id = model_id
        #: text-only unless a test has it stand in for a VLM
        self.accepts_images = accepts_images
        #: a scripted double may stand in for a tool-calling model (answers carry
        #: `Completion.tool_calls`; `CallInfo.params.tools` says what was offered)
        self.supports_tools = supports_tools
        self._script = script
        self._calls = 0
        self._lock = threading.Lock()
        self._role: str | None = None

    def generate(self, messages: list[Message], params: GenerateParams = DEFAULT_PARAMS, *,
                 n: int = 1, role: str | None = None) -> list[Completion]:
        self._role = role
        return super().generate(messages, params, n=n, role=role)

    def _sample(self, messages: list[Message], params: GenerateParams, index: int) -> Completion:
        with self._lock:
            number = self._calls
            self._calls += 1
        if callable(self._script):
            answer = self._script(messages, CallInfo(number, index, params, self._role))
        else:
            if number >= len(self._script):
                raise ModelError(
                    f"{self.model_id}: script exhausted after {len(self._script)} responses"
                )
            answer = self._script[number]
        if isinstance(answer, Completion):
            return replace(answer, sample_index=index, model_id=answer.model_id or self.model_id)
        words_in = sum(len(text_of(m).split()) for m in messages)
        words_out = len(answer.split())
        truncated = words_out > params.max_tokens
        if truncated:
            answer = " ".join(answer.split()[: params.max_tokens])
        return Completion(
            text=answer,
            finish_reason="length" if truncated else "stop",
            usage=Usage(words_in, min(words_out, params.max_tokens), 0),
            model_id=self.model_id,
            sample_index=index,
        )

    @property
    def calls(self) -> int:
        return self._calls
