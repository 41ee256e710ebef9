"""The student: `student(prompt, image) -> reply`, budgeted and recorded, with its counts.

`StudentSession` is the one student of the compile system: the callable the harness
runtime and the baselines take, for one item. Each call is a fresh context (one user
message). It counts the student's generated tokens (output plus reasoning, prefill
excluded, as the paper's Table 8) and its calls, for the item's facts.

Its calls take one of two charged paths, both through the kernel's budgeted, recorded
call (`tether.context`):
- inside a trial (`StudentSession(ctx, ...)`): `ctx.generate("student", ...)`, charged to
  the trial's ledger, seeded by the trial context;
- in a compile (`StudentSession.calling(call, ...)`): the compile's student endpoint
  (`compiler/endpoint.py`), charged to the compile's student budget with a fixed seed.

Modality: a text-only student gets no image. `modality="auto"` asks the model
(`tether.models.base.accepts_images`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from tether.errors import ConfigError
from tether.models import (
    Completion,
    Message,
    Model,
    accepts_images,
    png_data_url,
    spec_accepts_images,
)

if TYPE_CHECKING:  # annotations only: `tether compile` asks shown_images before it loads
    from tether.context import TrialContext

__all__ = ["MODALITIES", "STUDENT_ROLE", "StudentCall", "StudentSession", "generated_tokens",
           "resolve_modality", "shown_images", "student_message"]

STUDENT_ROLE = "student"
MODALITIES = ("auto", "text", "image")
Modality = Literal["text", "image"]
#: one charged call of the student: (messages, samples, max_tokens, temperature)
StudentCall = Callable[[list[Message], int, int, float], list[Completion]]


def resolve_modality(ctx: TrialContext, requested: str) -> Modality:
    """The student's modality for this trial (see the module docstring)."""
    if requested not in MODALITIES:
        raise ConfigError(f"unknown student modality {requested!r}",
                          hint=f"one of {', '.join(MODALITIES)}")
    if requested != "auto":
        return "image" if requested == "image" else "text"
    return "image" if accepts_images(ctx.model(STUDENT_ROLE)) else "text"


def shown_images(student: Model | None, spec: str, requested: str) -> bool:
    """Whether a compile's student will be shown images: from the built model, or before
    it is built from its spec; False where only the built model can tell and it is not
    built (a scripted double, a replay: its images are drawn as its items come)."""
    if requested != "auto":
        return requested == "image"
    return accepts_images(student) if student is not None else bool(spec_accepts_images(spec))


def student_message(prompt: str, image: bytes | None) -> list[Message]:
    """One user message: the prompt, and the PNG as a data URL when there is one."""
    if image is None:
        return [{"role": "user", "content": prompt}]
    url = png_data_url(image)
    return [{"role": "user", "content": [{"type": "text", "text": prompt},
                                         {"type": "image_url", "image_url": {"url": url}}]}]


def generated_tokens(completions: list[Completion]) -> int:
    return sum(c.usage.output_tokens + c.usage.reasoning_tokens for c in completions)


class StudentSession:
    """`student(prompt, image) -> reply` over one charged call path, with token
    accounting (see the module docstring)."""

    def __init__(self, ctx: TrialContext | None, *, max_tokens: int, temperature: float,
                 modality: Modality, call: StudentCall | None = None) -> None:
        if call is None:
            if ctx is None:
                raise TypeError("a student needs a trial context or a call path")

            def call(messages: list[Message], n: int, max_tokens: int,
                     temperature: float) -> list[Completion]:
                return ctx.generate(STUDENT_ROLE, messages, n=n, max_tokens=max_tokens,
                                    temperature=temperature)

        self._call = call
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.modality: Modality = modality
        self.calls = 0
        self.output_tokens = 0

    @classmethod
    def calling(cls, call: StudentCall, *, max_tokens: int, temperature: float,
                modality: Modality) -> StudentSession:
        """A student whose calls take `call` (a compile's student endpoint)."""
        return cls(None, max_tokens=max_tokens, temperature=temperature, modality=modality,
                   call=call)

    def sample(self, prompt: str, image: bytes | None, *, n: int = 1,
               temperature: float | None = None) -> list[Completion]:
        """n samples of one call (the image dropped for a text student)."""
        picture = image if self.modality == "image" else None
        completions = self._call(student_message(prompt, picture), n, self.max_tokens,
                                 self.temperature if temperature is None else temperature)
        self.calls += 1
        self.output_tokens += generated_tokens(completions)
        return completions

    def __call__(self, prompt: str, image: bytes | None) -> str:
        return self.sample(prompt, image)[0].text

    def facts(self) -> dict[str, Any]:
        return {"student_modality": self.modality, "student_calls": self.calls,
                "student_output_tokens": self.output_tokens}
