"""An attempt: one model reply and the artifact in it (or why there is none).

Loops need the reply text (the self-loop appends it to its conversation) as well
as the artifact, and must go on when a revision was cut off, so a `Truncated`
reply becomes an attempt without an artifact instead of an exception.
"""

from __future__ import annotations

from dataclasses import dataclass

from tether.context import TrialContext
from tether.core import Artifact, Truncated
from tether.models import Message
from tether.strategies.prompting import task_messages, to_artifact

#: How an artifact kind is fenced when a prompt shows it back to a model.
FENCE_LANGUAGE = {"program": "python", "scene": "python", "html": "html", "shell": "bash"}


#: The role of every call made here (drafts, revisions, samples): the proposer's.
PROPOSER_ROLE = "proposer"

CUT_OFF_NOTE = ("A previous reply was cut off before its code block was complete: "
                "write a shorter complete version.")


@dataclass
class Attempt:
    reply: str
    artifact: Artifact | None
    status: str = "ok"  # "ok" or "truncated"


def sample(ctx: TrialContext, messages: list[Message], *, role: str = PROPOSER_ROLE,
           max_tokens: int = 1024, temperature: float = 0.0, n: int = 1) -> list[Attempt]:
    """`n` replies of one budgeted call, each turned into an attempt (kept in the record)."""
    attempts = []
    for completion in ctx.generate(role, messages, max_tokens=max_tokens, n=n,
                                   temperature=temperature):
        try:
            artifact = to_artifact(ctx.task, completion)
        except Truncated:
            attempts.append(Attempt(completion.text, None, "truncated"))
            continue
        ctx.keep(artifact)
        attempts.append(Attempt(completion.text, artifact))
    return attempts


def single_shot_draft(ctx: TrialContext, *, max_tokens: int = 1024,
                      temperature: float = 0.0) -> Attempt:
    """The single-shot request: what `single_shot` delivers and every loop's iteration 0.

    One function for both (invariant 3): same messages, same `max_tokens`, same
    temperature and, being the trial's first call, the same seed, so with a
    deterministic model a loop's draft is the single-shot artifact at any temperature
    (a loop's `draft_temperature` is the single-shot arm's `temperature`).
    """
    (attempt,) = sample(ctx, task_messages(ctx.task), max_tokens=max_tokens,
                        temperature=temperature)
    return attempt


def shorter_retry(ctx: TrialContext, *, max_tokens: int = 1024,
                  temperature: float = 0.0, n: int = 1) -> list[Attempt]:
    """Ask again from the task after a reply was cut off before its artifact."""
    messages = task_messages(ctx.task)
    messages[-1] = {"role": "user", "content": messages[-1]["content"] + "\n\n" + CUT_OFF_NOTE}
    return sample(ctx, messages, max_tokens=max_tokens, temperature=temperature, n=n)


def revision_messages(ctx: TrialContext, program: str, notes: str) -> list[Message]:
    """A fresh context for a revision: the task, the current program and notes on it."""
    messages = task_messages(ctx.task)
    messages[-1] = {"role": "user", "content": (
        f"{messages[-1]['content']}\n\nCurrent version:\n{fenced(ctx, program)}\n\n"
        f"{notes}\n\nFix it. {answer_format(ctx)}")}
    return messages


def fenced(ctx: TrialContext, text: str) -> str:
    """`text` in a fenced block labelled for the task's artifact kind."""
    lang = FENCE_LANGUAGE.get(ctx.task.artifact_kind, "")
    return f"```{lang}\n{text.rstrip()}\n```"


def answer_format(ctx: TrialContext) -> str:
    kind = ctx.task.artifact_kind
    noun = "program" if kind in ("program", "scene") else kind
    return f"Reply with the complete {noun} in one fenced code block."
