"""One judge question: a forced tool call where the model takes tools, strict JSON otherwise.

The judge's answer must fit a schema (`parse` turns the arguments into the result or
raises ValueError with what is wrong). An unusable answer is sent back with the problem,
up to `retries` more times; after that the attempt gets a judge error, never an empty
answer ("no behaviour"). A model failure (API error, context overflow) is a judge error
at once: the backends already retry transport failures.

Every call takes the one charged call path (`tether.context.calls`): it is recorded in
the caller's log (role `judge`) and charged to the core's budget `Ledger`
(`tether.core.budget`), shared by the whole command: each call reserves its
`max_tokens` first (lowered to what is left; a call with no room is refused,
`CapReached`) and settles with the usage it reports, so recorded spend never exceeds
the cap.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tether.context import charged_generate
from tether.core import BudgetExhausted, BudgetSpec, Ledger
from tether.errors import TetherError
from tether.models import (
    CallRecord,
    GenerateParams,
    Message,
    Model,
    ModelError,
    first_json,
    function_tool,
    supports_tools,
)

JUDGE_ROLE = "judge"
Parse = Callable[[Any], dict[str, Any]]


class CapReached(TetherError):
    """The judge's token cap is spent: nothing more is asked."""


def judge_ledger(cap: int | None) -> Ledger:
    """The budget of one judge command: `cap` output tokens (reasoning included) in all
    for the role `judge`; None = no cap (spend is still counted)."""
    return Ledger(BudgetSpec(total=cap))


def _cap_text(ledger: Ledger) -> str:
    return f"the judge's token cap ({ledger.spec.total} output tokens) is spent"


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


def ask(model: Model, q: Question, *, ledger: Ledger, log: list[CallRecord],
        retries: int = 2, max_tokens: int = 1024, temperature: float = 0.0) -> Answer:
    """Ask `q`; the answer's result, or the judge error after `retries` re-asks. Every
    call is recorded in `log`. Raises CapReached when the ledger refuses a call."""
    tools = [function_tool(q.tool_name, q.tool_description, q.parameters)]
    native = supports_tools(model)
    system = q.system
    if not native:
        system += ("\n\nAnswer with ONE JSON object and nothing else, matching this JSON "
                   f"schema:\n{json.dumps(q.parameters)}")
    messages: list[Message] = [{"role": "system", "content": system},
                               {"role": "user", "content": q.user}]
    problem = "no answer"
    for attempt in range(retries + 1):
        request = (GenerateParams.of(max_tokens=max_tokens, temperature=temperature,
                                     tools=tools, tool_choice=q.tool_name) if native
                   else GenerateParams.of(max_tokens=max_tokens, temperature=temperature))
        try:
            (completion,) = charged_generate(ledger, log, model, JUDGE_ROLE, messages, request)
        except BudgetExhausted:
            raise CapReached(_cap_text(ledger)) from None
        except ModelError as exc:
            return Answer(None, f"model error: {type(exc).__name__}: {exc}", attempt + 1)
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
