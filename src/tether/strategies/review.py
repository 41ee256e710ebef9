"""The reviewer's structured defect list: schema, prompt and parser.

The proposer-reviewer harness turns an observation into a list of issues, each
with where (`location`), why (`cause`) and the concrete edit (`change`):

    {"issues": [{"location": "...", "cause": "...", "change": "..."}]}

The reviewer works in a fresh context (task, program, channel feedback); its list
is what reaches the proposer. A reply that is not that JSON is not dropped: its
text goes to the proposer as free-form notes, and the trial counts the failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tether.models import Message, NoJSONError, first_json

SCHEMA_HINT = ('{"issues": [{"location": "<function, line or element>", '
               '"cause": "<why it is wrong>", "change": "<the concrete edit to make>"}]}')

REVIEWER_SYSTEM = (
    "You are a careful code reviewer. You receive a task, the current attempt and, when "
    "available, evidence about how it behaves. Find what makes the attempt wrong and say "
    "precisely how to fix it. Answer with JSON only, in this form:\n" + SCHEMA_HINT
)

@dataclass(frozen=True)
class Issue:
    location: str
    cause: str
    change: str

    def line(self) -> str:
        where = f"[{self.location}] " if self.location else ""
        return f"{where}{self.cause}" + (f" -> change: {self.change}" if self.change else "")


@dataclass
class Review:
    """A parsed review; `parsed` is False when the reply was not the expected JSON."""

    issues: list[Issue] = field(default_factory=list)
    parsed: bool = True
    raw: str = ""

    def for_proposer(self) -> str:
        if self.issues:
            return "\n".join(f"{i}. {issue.line()}" for i, issue in enumerate(self.issues, 1))
        if not self.parsed and self.raw.strip():
            return "Reviewer notes:\n" + self.raw.strip()
        return "The reviewer named no specific issue."


def reviewer_messages(task_prompt: str, program_block: str, evidence: str) -> list[Message]:
    """A fresh reviewer context: the task, the fenced program and the channel's evidence."""
    parts = [f"Task:\n{task_prompt}", f"Current attempt:\n{program_block}"]
    if evidence:
        parts.append(f"Evidence:\n{evidence}")
    parts.append("List the issues as JSON: " + SCHEMA_HINT)
    return [{"role": "system", "content": REVIEWER_SYSTEM},
            {"role": "user", "content": "\n\n".join(parts)}]


def _has_issues(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("issues"), list)


def _issue_list(text: str) -> list[Any] | None:
    """The issues: an `{"issues": [...]}` object anywhere (fenced or bare), else the
    first JSON array; None when the reply has neither."""
    try:
        return first_json(text, kind="object", fenced=True, accept=_has_issues)["issues"]
    except NoJSONError:
        pass
    try:
        return first_json(text, kind="array", fenced=True)
    except NoJSONError:
        return None


def _issue(item: Any) -> Issue | None:
    if isinstance(item, str) and item.strip():
        return Issue(location="", cause=item.strip(), change="")
    if not isinstance(item, dict):
        return None
    fields = {k: str(item.get(k) or "").strip() for k in ("location", "cause", "change")}
    if not fields["cause"] and not fields["change"]:
        return None
    return Issue(**fields)


def parse_review(text: str) -> Review:
    """The reviewer's issues; `parsed=False` (with the raw text kept) when it is not JSON."""
    items = _issue_list(text)
    if items is None:
        return Review(issues=[], parsed=False, raw=text)
    issues = [i for i in map(_issue, items) if i is not None]
    return Review(issues=issues, parsed=True, raw=text)
