"""The generator's reply format, its tolerant parser and the action vote (Algorithm 2, lines 5-9).

A reply names one action on a line of its own, then its content:

    ACTION: plan       then the plan in words (it stays pinned in the generator's window)
    ACTION: inspect    asks for a summary of the current delivered scene's state
    ACTION: edit       then the COMPLETE program in one ```python fenced block
    ACTION: edit verify  the same, and the visual verifier compares the delivered render
                       with the goal (the paper's verifier "when requested by the tool")
    ACTION: end        the generator is done; the last delivered program is the answer

Tolerance: the action line may be decorated (`**Action:** Edit`, `action = edit`,
`# ACTION - edit`), any case; a JSON object `{"action": "edit"}` works too (with
`"verify": true` for the request). A reply
that names no action but holds a complete python block is an edit (recorded as
`inferred`). Everything else is invalid with a reason: no action, an edit without a
complete block (an unclosed fence is `truncated`), an empty plan.

The vote: the most frequent valid action type wins; a tie goes to the type that
appeared first among the candidates (deterministic, the candidates' sampling order).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from tether.core import strip_thinking

_ACTION_LINE = re.compile(
    r"^[\s>#*_`-]*action[\s*_`]*[:=\-][\s*_`]*(plan|inspect|edit|end)\b", re.I | re.M)
_ACTION_JSON = re.compile(r'"action"\s*:\s*"(plan|inspect|edit|end)"', re.I)
_VERIFY_WORD = re.compile(r"\bverif(y|ication|ier)\b", re.I)
_VERIFY_JSON = re.compile(r'"verify"\s*:\s*true', re.I)
_FENCE = re.compile(r"```([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.S)
_PYTHON_LANGS = ("", "python", "py", "python3", "py3")

REPLY_FORMAT = (
    "Start every reply with one action line, then its content:\n"
    "ACTION: plan      then your plan in words (it stays visible to you)\n"
    "ACTION: inspect   asks for a summary of the current scene's state\n"
    "ACTION: edit      then the COMPLETE edited program in one ```python block; it runs "
    "afresh on the base scene and is rendered\n"
    "ACTION: edit verify   the same, and a verifier compares the new render with the goal "
    "and tells you what still differs\n"
    "ACTION: end       you are done; the last delivered program is your answer"
)


@dataclass(frozen=True)
class Action:
    """One parsed candidate: its type (None when invalid), content and the reply."""

    kind: str | None
    reply: str
    program: str | None = None  # edit: the complete program
    text: str = ""  # plan: the plan
    inferred: bool = False  # edit recognised by its code block alone
    verify: bool = False  # edit: the reply asks for the visual verifier's feedback
    error: str | None = None  # why the reply is invalid

    @property
    def valid(self) -> bool:
        return self.kind is not None


def _program(body: str) -> tuple[str | None, bool]:
    """The last complete python (or bare) fenced block, and whether a fence is left open."""
    blocks = [m.group(2) for m in _FENCE.finditer(body)
              if m.group(1).lower() in _PYTHON_LANGS and m.group(2).strip()]
    rest = _FENCE.sub("", body)
    return (blocks[-1] if blocks else None), "```" in rest


def parse_reply(reply: str, finish_reason: str | None = None) -> Action:
    """The action of one generator reply (see the module docstring)."""
    body, open_think = strip_thinking(reply or "")
    found = _ACTION_LINE.search(body) or _ACTION_JSON.search(body)
    program, open_fence = _program(body)
    if found is None:
        if program is not None:
            return Action("edit", reply, program=program, inferred=True)
        why = "truncated" if (open_fence or open_think or finish_reason == "length") else \
            "no action line"
        return Action(None, reply, error=why)
    kind = found.group(1).lower()
    if kind == "edit":
        if program is None:
            why = "truncated" if (open_fence or finish_reason == "length") else \
                "edit without a complete ```python block"
            return Action(None, reply, error=why)
        line_end = body.find("\n", found.end())
        rest = body[found.end():line_end if line_end >= 0 else len(body)]
        verify = bool(_VERIFY_WORD.search(rest) or _VERIFY_JSON.search(body))
        return Action("edit", reply, program=program, verify=verify)
    text = body[found.end():].strip()
    if kind == "plan" and not text:
        return Action(None, reply, error="plan without text")
    return Action(kind, reply, text=text)


def vote(actions: list[Action]) -> str | None:
    """The winning action type, or None when no candidate is valid."""
    kinds = [a.kind for a in actions if a.kind is not None]
    if not kinds:
        return None
    counts = Counter(kinds)
    top = max(counts.values())
    return next(k for k in kinds if counts[k] == top)
