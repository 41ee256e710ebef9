"""TEST DOUBLES: scripted teachers. Not models; they write fixed harnesses by plan.

A `ScriptedTeacher` answers the compiler's teacher prompts as a `ScriptedModel` script.
It reads the call's place from the prompt's first line (`# Harness compilation: round R,
attempt A` or `...: one-shot`), so a resumed build gets the replies it would have got,
and answers with the move its plan names for that place:

- a variant name (`v1`, `v2`, `tied`, `crash`, `gold`, `open`): that harness of the
  setting named in the prompt (`## The setting: NAME`), from `VARIANTS`;
- `noop`: the harness the prompt asks it to edit, unchanged (B: the incumbent);
- `unparseable`: prose with no JSON; `error`: raises ModelError (an API failure);
- `trace>MOVE`: first asks for the trace of the first probe item named in the prompt,
  then, once the trace is in the prompt, makes MOVE.

Plans map "0" (a list: one move per round-0 attempt, the last repeated), "1", "2"...,
"oneshot" and "default" to moves. GEPA's reflection prompts (the `gepa` comparator:
gepa_arm.py) take the plan's "gepa" move (default `contract`): `contract` returns the
template it is shown with the answer-contract line "Answer with one word." added (the
scripted student formats better under a contract), `unchanged` returns it as it is;
`error` and `unparseable` as above. Variants: `v1` improves on bare (a code-computed
`Fact:` line the scripted student reads, no answer contract), `v2` improves on `v1`
(adds the contract and a parser), docs' `v3` reads a sentence reply (the fact it
repeats, else the sentence's predicate), `tied` scores exactly as bare (another hash),
`crash` has a route hook that raises (smoke-broken), `gold` hard-codes an inventory
answer, `open` calls `open` (hook whitelist). On any other setting that offers a
`context` resource (a data setting whose rows have that field, a tutorial's own
setting) `v1` and `v2` read the context (`data_variants`).

    scripted:tether.testing.scripted_teacher:competent   (v1 then v2, then no-ops)
    scripted:tether.testing.scripted_teacher:competent_sentences   (docs: v1, v2, v3)
    scripted:tether.testing.scripted_teacher:weak        (unusable, then tied)
    scripted:tether.testing.scripted_teacher:student     (the scripted student)
    scripted:tether.testing.scripted_teacher:mute        (never a harness: bare is kept)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from tether.models import ModelError
from tether.systems.compile import PROMPT_PART, REFLECTION_HEAD, SCHEMA
from tether.testing.scripted_student import Accuracies, ScriptedStudent

__all__ = ["VARIANTS", "ScriptedTeacher", "competent", "competent_sentences", "data_variants",
           "dead", "mute", "student", "weak"]

_PLACE = re.compile(r"^# Harness compilation: (?:round (\d+), attempt (\d+)|(one-shot))", re.M)
_SETTING = re.compile(r"^## The setting: (\S+)", re.M)
_ITEM = re.compile(r'"item_id": "([^"]+)"')

_PARSE = '''import re


def parse(text, item):
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    return re.sub(r"^answer\\s*:\\s*", "", lines[0], flags=re.I).strip().rstrip(".")
'''

_TOY_ROUTE = '''def route(obs, state):
    if state["calls"]:
        return {"done": True}
    signals = obs.get("signals")
    if signals:
        value = str(signals["a"] + signals["b"])
        return {"call_student": {"prompt": "fact", "vars": {"value": value}}}
    return {"call_student": {"prompt": "answer", "vars": {}}}
'''

_SHAPES_ROUTE = '''def route(obs, state):
    if state["calls"]:
        return {"done": True}
    s = obs.get("signals") or {}
    fractions = s.get("colour_fractions") or {}
    ranked = sorted(fractions.items(), key=lambda kv: -kv[1])
    colour = ranked[0][0] if ranked else ""
    fill = s.get("fill_ratio", 0.0)
    shape = "rectangle" if fill > 0.88 else ("circle" if fill > 0.64 else "triangle")
    words = obs["question"].lower().replace("?", "").split()
    if "color" in words:
        value = colour
    elif words[0] == "what" and "shape" in words:
        value = shape
    else:
        asked = [w for w in words if w in fractions or w in (shape, "circle", "rectangle",
                                                              "triangle")]
        present = all(w == colour or w == shape for w in asked)
        negated = "not" in words or "no" in words
        value = "yes" if present != negated else "no"
    return {"call_student": {"prompt": "fact", "vars": {"value": value}, "image": True}}
'''

_DOCS_ROUTE = '''import re

AMOUNT = r"\\$?\\d[\\d,]*\\.\\d\\d"


def amount_after(lines, labels, skip=()):
    for line in lines:
        low = line.lower()
        if any(lab in low for lab in labels) and not any(w in low for w in skip):
            found = re.findall(AMOUNT, line)
            if found:
                return found[-1]
    return ""


def fact(question, lines):
    q = question.lower()
    text = "\\n".join(lines)
    if "company" in q:
        return lines[0] if lines else ""
    if "phone" in q:
        m = re.search(r"\\(\\d\\d\\d\\) ?\\d\\d\\d-\\d\\d\\d\\d", text)
        return m.group(0) if m else ""
    if "number" in q:
        m = re.search(r"(?:INV|R)-?\\d\\d\\d\\d\\d?\\d?", text)
        return m.group(0) if m else ""
    if "date" in q:
        # digits are spelled out as \\d: a digit literal may match a gold count
        year = r"\\d\\d\\d\\d"
        dates = re.findall(year + r"-\\d\\d-\\d\\d|\\d\\d/\\d\\d/" + year
                           + r"|\\d\\d? [A-Z][a-z][a-z] " + year, text)
        return (dates[1] if "paid" in q and len(dates) > 1 else dates[0]) if dates else ""
    if "before tax" in q:
        return amount_after(lines, ("subtotal", "sub-total", "items total", "net amount"))
    if "tax" in q:
        return amount_after(lines, ("tax", "vat", "gst"))
    if "change" in q:
        return amount_after(lines, ("change",))
    if "cash" in q:
        return amount_after(lines, ("cash",))
    if "total" in q or "final" in q:
        return amount_after(lines, ("total", "amount due", "balance due", "to pay"),
                            ("subtotal", "sub-total", "items total", "date"))
    return ""


def route(obs, state):
    if state["calls"]:
        return {"done": True}
    lines = [ln.strip() for ln in obs.get("ocr", "").splitlines() if ln.strip()]
    value = fact(obs["question"], lines)
    excerpt = "\\n".join(lines)
    if value:
        return {"call_student": {"prompt": "fact", "vars": {"value": value, "lines": excerpt}}}
    return {"call_student": {"prompt": "answer", "vars": {"lines": excerpt}}}
'''


# What a teacher writes after reading probe traces of a student that answers in sentences
# ("The receipt number is R-23551."): the route's code-computed fact is the answer when
# the reply repeats it (the student confirms it), else the sentence's predicate, so a
# chatty student is no longer scored on its phrasing. `fact` is the route hook's helper:
# the hook sources share one module.
_DOCS_SENTENCE_PARSE = '''import re


def parse(text, item):
    reply = " ".join(text.split())
    lines = [ln.strip() for ln in item.get("ocr", "").splitlines() if ln.strip()]
    value = fact(item.get("question", ""), lines)
    if value and value.lower() in reply.lower():
        return value
    first = re.sub(r"^answer\\s*:\\s*", "", reply, flags=re.I)
    first = re.split(r"(?<=[.!?])\\s", first)[0].strip().rstrip(".")
    said = re.match(r"^(?:the|its|it)\\b.*?\\b(?:is|was|are|were)\\s+(.+)$", first, re.I)
    return said.group(1).strip() if said else first
'''


def _doc(setting: str, prompts: dict[str, str], *, resources: dict[str, Any] | None = None,
         hooks: dict[str, str] | None = None, max_tokens: int = 32) -> dict[str, Any]:
    return {"schema": SCHEMA, "setting": setting, "prompts": prompts,
            "decode": {"max_tokens": max_tokens, "temperature": 0.0},
            "resources": resources or {}, "answer_mode": "defer", "hooks": hooks or {}}


def _variants(setting: str) -> dict[str, dict[str, Any]]:
    bare = {"answer": "{question}"}
    common = {
        "tied": _doc(setting, {"answer": "{question}\n"}, max_tokens=64),
        "crash": _doc(setting, bare, hooks={
            "route": "def route(obs, state):\n    raise ValueError('scripted crash')\n"}),
        "open": _doc(setting, bare, hooks={
            "route": "def route(obs, state):\n    open('/etc/hostname')\n"
                     "    return {'call_student': {'prompt': 'answer', 'vars': {}}}\n"}),
    }
    golds = {"toy": _doc(setting, {"answer": "{question} (Paris, perhaps?)"}),
             "shapes": _doc(setting, {"answer": "{question}"},
                            hooks={"parse": "def parse(text, item):\n"
                                            "    return 'Nowhereland'\n"})}
    if setting in golds:  # toy and shapes: the same two variants around their own route
        route = _TOY_ROUTE if setting == "toy" else _SHAPES_ROUTE
        fact = "Fact: {value}\nQuestion: {question}"
        return {**common,
                "v1": _doc(setting, {"answer": "{question}", "fact": fact},
                           resources={"signals": True}, hooks={"route": route}),
                "v2": _doc(setting, {"answer": "{question}",
                                     "fact": fact + "\nAnswer with one word."},
                           resources={"signals": True},
                           hooks={"route": route, "parse": _PARSE}),
                "gold": golds[setting]}
    if setting == "docs":
        ocr = {"ocr": {"max_chars": 4000}}
        frame = ("Context (OCR text of the page; may contain errors):\n{%s}\n\n"
                 "Question: {question}\nAnswer with one word, a number or a short phrase "
                 "copied from the page.\nAnswer:")
        fact = ("Fact: {value}\nContext (OCR lines of the page):\n{lines}\n\n"
                "Question: {question}\nAnswer with a single word, number, or short phrase.\n"
                "Answer:")
        return {**common,
                "v1": _doc(setting, {"answer": frame % "ocr"}, resources=ocr,
                           hooks={"parse": _PARSE}, max_tokens=48),
                "v2": _doc(setting, {"answer": frame % "lines", "fact": fact}, resources=ocr,
                           hooks={"route": _DOCS_ROUTE, "parse": _PARSE}, max_tokens=48),
                "v3": _doc(setting, {"answer": frame % "lines", "fact": fact}, resources=ocr,
                           hooks={"route": _DOCS_ROUTE, "parse": _DOCS_SENTENCE_PARSE},
                           max_tokens=48),
                "gold": _doc(setting, bare)}
    return common


VARIANTS = {name: _variants(name) for name in ("toy", "shapes", "docs")}


def data_variants(setting: str) -> dict[str, dict[str, Any]]:
    """The variants on a data setting (`jsonl:PATH`) whose rows carry a `context` field:
    `v1` shows the context as a `Fact:` line, `v2` adds the answer contract and parser."""
    fact = "Fact: {context}\nQuestion: {question}"
    return {**_variants(setting),
            "v1": _doc(setting, {"answer": fact}, resources={"context": True}),
            "v2": _doc(setting, {"answer": fact + "\nAnswer with one word."},
                       resources={"context": True}, hooks={"parse": _PARSE})}


class ScriptedTeacher:
    """TEST DOUBLE (see the module docstring); `script` is the ScriptedModel callable."""

    def __init__(self, plan: Mapping[str, str | list[str]],
                 variants: Mapping[str, Mapping[str, dict[str, Any]]] | None = None) -> None:
        self.plan = dict(plan)
        #: more variants by setting (tests add their own harnesses)
        self.variants = {name: {**VARIANTS.get(name, {}), **(variants or {}).get(name, {})}
                         for name in {*VARIANTS, *(variants or {})}}
        self.prompts: list[str] = []

    def move(self, prompt: str) -> str:
        place = _PLACE.search(prompt)
        if place is None:
            return str(self.plan.get("default", "unparseable"))
        if place.group(3):
            key, attempt = "oneshot", 0
        else:
            key, attempt = place.group(1), int(place.group(2)) - 1
        move = self.plan.get(key, self.plan.get("default", "noop"))
        if isinstance(move, list):
            move = move[min(attempt, len(move) - 1)]
        return str(move)

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if prompt.startswith(REFLECTION_HEAD):
            return self._gepa(prompt, str(self.plan.get("gepa", "contract")))
        move = self.move(prompt)
        if move.startswith("trace>"):
            if "## The probe trace you asked for" not in prompt:
                found = _ITEM.search(prompt)
                return json.dumps({"request_trace": found.group(1) if found else "none"})
            move = move.removeprefix("trace>")
        if move == "error":
            raise ModelError("scripted teacher: simulated API error after retries")
        if move == "unparseable":
            return "I would improve the harness, but I will not write JSON today."
        if move == "noop":
            return "No change is supported by the evidence.\n```json\n" + json.dumps(
                _edited(prompt)) + "\n```"
        setting = _SETTING.search(prompt)
        name = setting.group(1) if setting else ""
        offers_context = '"context": true' in prompt  # the resources line of the setting
        variants = self.variants.get(name) or (data_variants(name) if offers_context else {})
        if move not in variants:
            return f"(scripted teacher has no variant {move!r} for this setting)"
        return "Here is the harness.\n```json\n" + json.dumps(variants[move], indent=1) + "\n```"

    def _gepa(self, prompt: str, move: str) -> str:
        """A reply to GEPA's reflection prompt: the template in its first ``` block."""
        if move == "error":
            raise ModelError("scripted teacher: simulated API error after retries")
        if move == "unparseable":
            return "I would improve the template, but not today."
        template = prompt.split("```\n", 1)[1].split("\n```", 1)[0]
        if PROMPT_PART not in prompt:  # resources, output or parse hook: kept as they are
            return f"The same.\n```\n{template}\n```"
        if move == "contract" and _CONTRACT_LINE not in template:
            template = f"{template}\n{_CONTRACT_LINE}"
        return f"A template with an answer contract.\n```\n{template}\n```"

    def script(self, messages: list[dict[str, Any]], info: Any) -> str:
        content = messages[-1]["content"]
        return self(content if isinstance(content, str) else json.dumps(content))


_CONTRACT_LINE = "Answer with one word."


def _edited(prompt: str) -> dict[str, Any]:
    """The harness the prompt asks to edit: B's incumbent, A's latest proposal."""
    for head in ("## The incumbent (hash", "## The latest proposal"):
        at = prompt.find(head)
        if at >= 0:
            body = prompt[at:].split("```json\n", 1)[1].split("\n```", 1)[0]
            return dict(json.loads(body))
    return {}


competent = ScriptedTeacher({"0": ["v1"], "1": "v2", "default": "noop", "oneshot": "v1"}).script
#: competent, then (docs) round 2 proposes v3, the parser for a student that answers in
#: sentences; on a setting without v3 that round is an unknown move (not a harness)
competent_sentences = ScriptedTeacher({"0": ["v1"], "1": "v2", "2": "v3", "default": "noop",
                                       "oneshot": "v1"}).script
weak = ScriptedTeacher({"0": ["unparseable", "crash", "tied"], "default": "tied",
                        "oneshot": "unparseable"}).script
#: a teacher at a dead endpoint: every call fails as an API error would
dead = ScriptedTeacher({"0": ["error"], "default": "error", "oneshot": "error"}).script
#: a teacher that answers every call without a harness (prose, no JSON): every round is
#: unparseable and bare is kept, so a compile's student calls are bare's scoring alone
#: (benchmarks/compile_throughput.py times them)
mute = ScriptedTeacher({"0": ["unparseable"], "default": "unparseable",
                        "oneshot": "unparseable", "gepa": "unparseable"}).script
#: the scripted student (testing/scripted_student.py) as a model callable
student = ScriptedStudent({}, Accuracies()).script
