"""One judge question: a forced tool call where the model takes tools, strict JSON otherwise.

The judge's answer must fit a schema (`parse` turns the arguments into the result or
raises ValueError with what is wrong). An unusable answer is sent back with the problem,
up to `retries` more times; after that the attempt gets a judge error, never an empty
answer ("no behaviour"). A model failure (API error, context overflow) is a judge error
at once: the backends already retry transport failures.

Every call goes through a `RecordingModel` into the caller's log (role `judge`), and a
`TokenCap` shared by the whole command is checked before each call and lowers the call's
`max_tokens` to what is left, so the cap is never exceeded.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tether.errors import TetherError
from tether.models.base import Message, function_tool
from tether.models.errors import ModelError
from tether.models.recording import RecordingModel
from tether.models.replies import first_json

JUDGE_ROLE = "judge"
Parse = Callable[[Any], dict[str, Any]]


class CapReached(TetherError):
    """The judge's token cap is spent: nothing more is asked."""


class TokenCap:
    """Output tokens (reasoning included) the judge may still spend; None = no cap."""

    def __init__(self, cap: int | None) -> None:
        self.cap = cap
        self.spent = 0

    def allow(self, max_tokens: int) -> int:
        """The max_tokens the next call may have; CapReached when nothing is left."""
        if self.cap is None:
            return max_tokens
        left = self.cap - self.spent
        if left <= 0:
            raise CapReached(f"the judge's token cap ({self.cap} output tokens) is spent")
        return min(max_tokens, left)

    def charge(self, output_tokens: int) -> None:
        self.spent += output_tokens


@dataclass(frozen=True)
class Question:
    system: str
    user: str
    #: the answer's function: name, description and JSON-schema parameters
    tool_name: str
    tool_description: str
    parameters: dict[str, Any]
    parse: Parse


@dataclass
class Answer:
    result: dict[str, Any] | None
    error: str | None
    tries: int


def _retry_note(problem: str, q: Question) -> str:
    return (f"Your answer could not be used: {problem}. Answer again with the whole "
            f"answer, exactly in the required form.")


def ask(model: RecordingModel, q: Question, *, cap: TokenCap, retries: int = 2,
        max_tokens: int = 1024) -> Answer:
    """Ask `q`; the answer's result, or the judge error after `retries` re-asks."""
    tools = [function_tool(q.tool_name, q.tool_description, q.parameters)]
    native = bool(model.supports_tools)
    system = q.system
    if not native:
        system += ("\n\nAnswer with ONE JSON object and nothing else, matching this JSON "
                   f"schema:\n{json.dumps(q.parameters)}")
    messages: list[Message] = [{"role": "system", "content": system},
                               {"role": "user", "content": q.user}]
    problem = "no answer"
    for attempt in range(retries + 1):
        request: dict[str, Any] = {"max_tokens": cap.allow(max_tokens), "temperature": 0.0}
        if native:
            request.update(tools=tools, tool_choice=q.tool_name)
        before = len(model.log)
        try:
            (completion,) = model.generate(messages, role=JUDGE_ROLE, **request)
        except ModelError as exc:
            return Answer(None, f"model error: {type(exc).__name__}: {exc}", attempt + 1)
        finally:
            cap.charge(sum(r.usage.output_tokens + r.usage.reasoning_tokens
                           for r in model.log[before:]))
        calls = [c for c in completion.tool_calls if c.name == q.tool_name]
        try:
            if calls:
                try:
                    args = json.loads(calls[0].arguments)
                except ValueError as exc:
                    raise ValueError(f"the tool call's arguments are not JSON ({exc})") from None
            elif native and completion.tool_calls:
                raise ValueError(f"call the function {q.tool_name!r}, not "
                                 f"{completion.tool_calls[0].name!r}")
            else:
                args = first_json(completion.text, kind="object", fenced=True,
                                  strip_think=True)
            return Answer(q.parse(args), None, attempt + 1)
        except ValueError as exc:
            problem = str(exc)
        if completion.tool_calls:
            messages = [*messages,
                        {"role": "assistant", "content": completion.text,
                         "tool_calls": [c.to_message() for c in completion.tool_calls]},
                        *({"role": "tool", "tool_call_id": c.id,
                           "content": _retry_note(problem, q)} for c in completion.tool_calls)]
        else:
            messages = [*messages, {"role": "assistant", "content": completion.text},
                        {"role": "user", "content": _retry_note(problem, q)}]
    return Answer(None, f"unusable answer after {retries + 1} tries: {problem}", retries + 1)
