"""Three baselines with no compiled harness: `cot_vote`, `plain_vote` and `student_routed`.

- `cot_vote`: the bare question with a chain-of-thought instruction, `n` samples (5) at
  `temperature` (0.7) in one call; each sample's answer is its last "Answer:" line; the
  answer is the majority of the parsed answers (case and spacing folded; ties go to the
  earliest sample). Samples with no parsable answer do not vote.
- `plain_vote`: majority vote without chain of thought: the bare question as it is (the
  bare harness's prompt), `n` samples (5) at `temperature` (0.7) in one call, each
  sample's reply stripped is its answer, the majority as above. It is the paper's
  "majority vote, no CoT" comparator (paper 001); the paper's test-time augmentation
  (token logits averaged over 16 views) needs logits chat endpoints do not give, and is
  not offered.
- `student_routed`: compiled control removed (the paper's student-routed arm). The student
  is shown a menu of the setting's resources and chooses which to request, with an
  optional size argument (`ocr 1500`, `cards 300`, `pages 2`); it then sees the raw
  content of what it asked for (raw JSON, raw signals) and answers. No code verdict,
  no parser beyond stripping.

Both report the student's generated tokens (output plus reasoning, prefill excluded)
and calls in their facts, like `compiled_harness`.

Each strategy's `answer(setting, item, student, image)` is the baseline on one item
over any `BaselineStudent` (a `StudentSession`, in a trial or on the compile's student
endpoint: `tether compile` scores both baselines on its test items), and its `key`
names its scores in a compile: the name and a digest of its parameters and prompts, so
a changed prompt never reuses old scores.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from typing import Any, ClassVar, Literal, Protocol

from pydantic import Field

from tether import params
from tether.context import TrialContext
from tether.core import Artifact, Facts
from tether.models import Completion
from tether.strategies import StrategyResult, register_strategy
from tether.systems.compile.setting import Item, Setting
from tether.systems.compile.student import STUDENT_ROLE, StudentSession, resolve_modality
from tether.systems.compile.tasks import item_of

__all__ = ["BASELINES", "COT_PROMPT", "MENU_PROMPT", "PLAIN_PROMPT", "BaselineStudent",
           "CotVote", "PlainVote", "StudentRouted", "majority", "parse_cot", "parse_request"]

COT_PROMPT = ("Question: {question}\nThink step by step, then give the final answer on the "
              "last line as \"Answer: <a single word, number, or short phrase>\".")
#: the bare harness's prompt: the question and nothing else
PLAIN_PROMPT = "{question}"
MENU_PROMPT = ("Question: {question}\nBefore answering you may request evidence. Available:\n"
               "{menu}\nReply with the names of what you want (optionally followed by a size, "
               "e.g. \"{example}\"), or \"none\".")
READ_PROMPT = "Question: {question}\n{evidence}\nAnswer the question."
#: the numeric option a size argument sets, per resource
SIZE_OPTION = {"ocr": "max_chars", "cards": "budget_chars", "pages": "k"}
DESCRIPTIONS = {"ocr": "ocr: the OCR text of the page",
                "cards": "cards: the linker's top candidates with their fact cards",
                "pages": "pages: the slides a ranker finds most related to the question",
                "signals": "signals: numeric measurements of the image"}


class BaselineStudent(Protocol):
    """The student a baseline calls: samples of one call, or one reply."""

    def sample(self, prompt: str, image: bytes | None, *, n: int = 1,
               temperature: float | None = None) -> list[Completion]: ...

    def __call__(self, prompt: str, image: bytes | None) -> str: ...


def _key(name: str, params: dict[str, Any]) -> str:
    blob = json.dumps(params, sort_keys=True).encode("utf-8")
    return f"{name}-{hashlib.sha256(blob).hexdigest()[:16]}"


_ANSWER = re.compile(r"^\s*(?:final\s+)?answer\s*[:\-]\s*(.+?)\s*$", re.I | re.M)


class BaselineFacts(Facts):
    setting: str
    item_id: str
    student_modality: str
    student_calls: int = 0
    student_output_tokens: int = 0
    votes: list[str] | None = None
    requested: dict[str, Any] | None = None


def parse_cot(text: str) -> str | None:
    """The last "Answer: ..." line of a sample, without a final period; None if none."""
    found = _ANSWER.findall(text)
    return found[-1].strip().strip("\"'").rstrip(".").strip() if found else None


def majority(answers: list[str | None]) -> str:
    """The most frequent parsed answer (folded), ties to the earliest; '' when none."""
    parsed = [a for a in answers if a]
    if not parsed:
        return ""
    counts = Counter(" ".join(a.casefold().split()) for a in parsed)
    best = max(counts.values())
    return next(a for a in parsed if counts[" ".join(a.casefold().split())] == best)


@register_strategy("cot_vote")
class CotVote:
    name: ClassVar[str] = "cot_vote"
    roles: ClassVar[tuple[str, ...]] = (STUDENT_ROLE,)

    class Params(params.Params):
        n: params.Count = Field(5, description="chain-of-thought samples voted on")
        temperature: params.Temperature = Field(0.7, description="the samples' temperature")
        max_tokens: params.Tokens = Field(256, description="most tokens of one sample")
        modality: Literal["auto", "text", "image"] = Field(
            "auto", description="the student's input: text, image, or auto")

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()

    # the student's decoding, as the compile's scorer asks a baseline for it
    @property
    def max_tokens(self) -> int:
        return self.params.max_tokens

    @property
    def temperature(self) -> float:
        return self.params.temperature

    @property
    def key(self) -> str:
        p = self.params
        return _key(self.name, {"n": p.n, "temperature": p.temperature,
                                "max_tokens": p.max_tokens, "prompt": COT_PROMPT})

    def answer(self, setting: Setting, item: Item, student: BaselineStudent,
               image: bytes | None) -> tuple[str, dict[str, Any]]:
        """(the majority answer, {"votes"}); `student` decodes at this baseline's
        temperature and max_tokens."""
        samples = student.sample(COT_PROMPT.format(question=item.question), image,
                                 n=self.params.n, temperature=self.params.temperature)
        votes = [parse_cot(c.text) for c in samples]
        return majority(votes), {"votes": [v or "" for v in votes]}

    def run(self, ctx: TrialContext) -> StrategyResult:
        setting, item = item_of(ctx.task)
        student = StudentSession(ctx, max_tokens=self.params.max_tokens,
                                 temperature=self.params.temperature,
                                 modality=resolve_modality(ctx, self.params.modality))
        image = setting.image(item) if student.modality == "image" else None
        answer, detail = self.answer(setting, item, student, image)
        facts = BaselineFacts(setting=setting.name, item_id=item.item_id,
                              votes=detail["votes"], **student.facts())
        return StrategyResult(artifact=Artifact(kind="text", text=answer), facts=facts)


@register_strategy("plain_vote")
class PlainVote(CotVote):
    """Majority vote over samples of the bare question, no chain of thought."""

    name: ClassVar[str] = "plain_vote"

    class Params(CotVote.Params):
        max_tokens: params.Tokens = Field(64, description="most tokens of one sample")

    @property
    def key(self) -> str:
        p = self.params
        return _key(self.name, {"n": p.n, "temperature": p.temperature,
                                "max_tokens": p.max_tokens, "prompt": PLAIN_PROMPT})

    def answer(self, setting: Setting, item: Item, student: BaselineStudent,
               image: bytes | None) -> tuple[str, dict[str, Any]]:
        samples = student.sample(PLAIN_PROMPT.format(question=item.question), image,
                                 n=self.params.n, temperature=self.params.temperature)
        votes: list[str | None] = [c.text.strip() or None for c in samples]
        return majority(votes), {"votes": [v or "" for v in votes]}


def parse_request(reply: str, offered: tuple[str, ...]) -> dict[str, Any]:
    """The resources a menu reply names (whole words), each with its size argument."""
    out: dict[str, Any] = {}
    for name in offered:
        match = re.search(rf"\b{re.escape(name)}\b(?:\s*[:=]?\s*(\d+))?", reply, re.I)
        if match is None:
            continue
        size = match.group(1)
        option = SIZE_OPTION.get(name)
        out[name] = {option: int(size)} if size and option else True
    return out


@register_strategy("student_routed")
class StudentRouted:
    name: ClassVar[str] = "student_routed"
    roles: ClassVar[tuple[str, ...]] = (STUDENT_ROLE,)

    class Params(params.Params):
        max_tokens: params.Tokens = Field(64, description="most tokens of one student reply")
        modality: Literal["auto", "text", "image"] = Field(
            "auto", description="the student's input: text, image, or auto")

    #: it decodes greedily (no parameter: the baseline is defined so)
    temperature = 0.0

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()

    @property
    def max_tokens(self) -> int:
        """The student's decoding, as the compile's scorer asks a baseline for it."""
        return self.params.max_tokens

    @property
    def key(self) -> str:
        return _key(self.name, {"max_tokens": self.params.max_tokens, "menu": MENU_PROMPT,
                                "read": READ_PROMPT, "descriptions": DESCRIPTIONS})

    def run(self, ctx: TrialContext) -> StrategyResult:
        setting, item = item_of(ctx.task)
        student = StudentSession(ctx, max_tokens=self.params.max_tokens, temperature=0.0,
                                 modality=resolve_modality(ctx, self.params.modality))
        image = setting.image(item) if student.modality == "image" else None
        answer, detail = self.answer(setting, item, student, image)
        facts = BaselineFacts(setting=setting.name, item_id=item.item_id,
                              requested=detail["requested"], **student.facts())
        return StrategyResult(artifact=Artifact(kind="text", text=answer), facts=facts)

    def answer(self, setting: Setting, item: Item, student: BaselineStudent,
               image: bytes | None) -> tuple[str, dict[str, Any]]:
        """(the stripped answer, {"requested"}); `student` decodes greedily with this
        baseline's max_tokens."""
        offered = tuple(getattr(setting, "offered_resources", ()))
        requested: dict[str, Any] = {}
        if offered:
            menu = "\n".join(f"- {DESCRIPTIONS.get(r, r)}" for r in offered)
            example = next((f"{r} 1000" for r in offered if r in SIZE_OPTION), offered[0])
            reply = student(MENU_PROMPT.format(question=item.question, menu=menu,
                                               example=example), image)
            requested = parse_request(reply, offered)
        obs = setting.observation(item, requested)
        raw = {k: v for k, v in obs.items() if k not in ("item_id", "question")}
        evidence = "".join(f"{k}:\n{v if isinstance(v, str) else json.dumps(v)}\n"
                           for k, v in raw.items())
        answer = student(READ_PROMPT.format(question=item.question, evidence=evidence), image)
        return answer.strip(), {"requested": requested}


#: the baselines `tether compile` scores beside its harness arms, by comparator name
BASELINES: dict[str, type[CotVote] | type[StudentRouted]] = {
    "student_routed": StudentRouted, "cot_vote": CotVote, "plain_vote": PlainVote}
