"""`critique`: a model reads the artifact (never runs or renders it) and lists defects.
Ungrounded. Programs and HTML pages get their own reviewer prompt.

The instrument owns no model: it calls the `generate` its environment binds (the
trial's budgeted, recorded call, role `reviewer` as feedback). `critique` alone uses
the role's model; `critique;model=SPEC` names another one, still charged to the role.
"""

from __future__ import annotations

import json
import time
from typing import ClassVar

from pydantic import Field

from tether import params
from tether.core import Artifact, Defect, Observation, Task
from tether.instruments.base import InstrumentEnv, register_instrument
from tether.models import Message, NoJSONError, first_json

CRITIQUE_SYSTEM = (
    "You review Python programs without running them. Find real defects: wrong results, "
    "unhandled cases the task asks for, crashes. Do not report style."
)
CRITIQUE_INSTRUCTIONS = (
    "Reply with JSON only: a list of objects "
    '{"location": "line N or function name", "cause": "what is wrong", '
    '"change": "the concrete fix"}. Reply [] if the program is correct.'
)


#: Pages (figures, slides, web pages, animations) are read as source, never rendered:
#: this is the ungrounded reviewer the geometry channel is compared against.
PAGE_CRITIQUE_SYSTEM = (
    "You review HTML/CSS pages (figures, slides, web pages, animations) by reading their "
    "source, without rendering them. Find real defects: text that overlaps other text, "
    "content clipped or outside the canvas, unreadable contrast, requirements of the task "
    "that are missing. Do not report code style."
)
PAGE_CRITIQUE_INSTRUCTIONS = (
    "Reply with JSON only: a list of objects "
    '{"location": "element or CSS selector", "cause": "what is wrong", '
    '"change": "the concrete fix"}. Reply [] if the page is correct.'
)


def critique_messages(task: Task, text: str, kind: str = "program") -> list[Message]:
    """The request a critique makes: the task prompt and the artifact, nothing hidden.
    An `html` artifact gets the page reviewer's prompt, anything else the program's."""
    if kind == "html":
        user = (f"Task:\n{task.prompt}\n\nPage:\n```html\n{text}\n```\n\n"
                f"{PAGE_CRITIQUE_INSTRUCTIONS}")
        return [{"role": "system", "content": PAGE_CRITIQUE_SYSTEM},
                {"role": "user", "content": user}]
    user = (f"Task:\n{task.prompt}\n\nProgram:\n```python\n{text}\n```\n\n"
            f"{CRITIQUE_INSTRUCTIONS}")
    return [{"role": "system", "content": CRITIQUE_SYSTEM}, {"role": "user", "content": user}]


def parse_critique(text: str) -> list[Defect]:
    """Defects from a critique reply, leniently: an unreadable reply is one defect holding
    the text (the reviewer still said something), never an error."""
    try:
        # the first JSON array or object, fenced or bare
        value = first_json(text, kind="any", fenced=True)
    except NoJSONError:
        stripped = text.strip()
        if not stripped:
            return []
        return [Defect(kind="critique", message=stripped[:2000],
                       evidence={"unparsed": True})]
    if isinstance(value, dict):
        value = next((v for v in value.values() if isinstance(v, list)), [value])
    defects = []
    for entry in value if isinstance(value, list) else [value]:
        if isinstance(entry, dict):
            cause = str(entry.get("cause") or entry.get("issue") or entry.get("message")
                        or entry.get("description") or json.dumps(entry))
            change = entry.get("change") or entry.get("fix") or entry.get("suggestion")
            location = entry.get("location") or entry.get("line")
            defects.append(Defect(
                kind="critique", message=cause,
                location=str(location) if location is not None else None,
                evidence={"change": str(change)} if change else {}))
        elif str(entry).strip():
            defects.append(Defect(kind="critique", message=str(entry)))
    return defects


def defect_line(d: Defect) -> str:
    """One defect as a feedback line: where, what, and the change it names."""
    where = f"{d.location}: " if d.location else ""
    change = d.evidence.get("change") if d.evidence else None
    return f"{where}{d.message}" + (f" (change: {change})" if change else "")


@register_instrument("critique")
class CritiqueInstrument:
    name: ClassVar[str] = "critique"
    version: ClassVar[str] = "1"
    grounded: ClassVar[bool] = False
    #: its calls go through the bound generate (role by purpose: see tether.context)
    calls_model = True

    class Params(params.Params):
        model: str | None = Field(None, description="a model spec for the critique call "
                                                    "(default: the role's model)")
        max_tokens: params.Tokens = Field(512, description="most tokens of the critique")

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()

    @staticmethod
    def feedback(obs: Observation) -> str:
        """A model's opinion, said as such (the feedback channels' wording)."""
        lines = [f"- {defect_line(d)}" for d in obs.defects] or ["- no defects named"]
        return ("A reviewer reading the code (without running it) noted:\n"
                + "\n".join(lines))

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        start = time.monotonic()
        generate = env.require_generate(self.name)
        (completion,) = generate(critique_messages(task, artifact.text, artifact.kind),
                                 model=self.params.model, max_tokens=self.params.max_tokens)
        # parse_critique keeps an unreadable reply as one defect holding its text
        defects = parse_critique(completion.text)
        return Observation(
            instrument=self.name, version=self.version, grounded=False,
            score=None, passed=not defects, defects=defects,
            raw={"reply": completion.text[:4000], "finish_reason": completion.finish_reason,
                 "usage": {"input_tokens": completion.usage.input_tokens,
                           "output_tokens": completion.usage.output_tokens}},
            duration_s=time.monotonic() - start)
