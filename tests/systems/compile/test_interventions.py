"""The five decision interventions on fixed harnesses with the scripted student (a test
double): the paper's signs, and n/a where a harness has nothing to change."""

from __future__ import annotations

from typing import Any

import pytest

from tether.stats import paired_change
from tether.systems.compile.harness import SCHEMA, Harness
from tether.systems.compile.interventions import NotApplicable, intervene
from tether.systems.compile.runtime import HarnessRuntime
from tether.systems.compile.setting import Item
from tether.systems.compile.settings.toy import ToySetting
from tether.testing.scripted_student import Accuracies, ScriptedStudent

N = 80


class LinkedToy(ToySetting):
    """Test double: an entity shown per item, a linker's top 3 (top 1 right on half the
    items), cards "Entity: NAME / Fact: VALUE", lookup by name."""

    name = "linked"
    offered_resources = ("cards",)
    ENTITIES = [f"Land{i}" for i in range(12)]

    def fact(self, name: str) -> str:
        return f"F{self.ENTITIES.index(name) * 7 % 12}"

    def card(self, name: str) -> dict[str, Any]:
        return {"name": name, "similarity": 0.5, "card": f"Entity: {name}\nFact: {self.fact(name)}"}

    def items(self) -> list[Item]:
        out = []
        for k in range(N):
            shown = self.ENTITIES[k % 12]
            others = [e for e in self.ENTITIES if e != shown][k % 5:k % 5 + 2]
            ranked = [shown, *others] if k % 2 == 0 else [others[0], shown, others[1]]
            out.append(Item(f"l{k}", f"What is the fact of the entity in picture {k}?",
                            {"shown": shown, "ranked": ranked, "answer": self.fact(shown)}))
        return out

    def observation(self, item: Item, resources: Any) -> dict[str, Any]:
        obs = {"item_id": item.item_id, "question": item.question}
        if resources.get("cards"):
            obs["candidates"] = [self.card(n) for n in item.data["ranked"]]
        return obs

    def lookup(self, name: str, resources: Any) -> dict[str, Any] | None:
        return self.card(name) if name in self.ENTITIES else None


class DialToy(ToySetting):
    """Test double: yes/no questions on a measured level; the rule is right when the
    level is far from the threshold."""

    name = "dial"

    def items(self) -> list[Item]:
        levels = [(k * 37 % 100) / 100 for k in range(N)]
        return [Item(f"d{k}", f"Is the dial in picture {k} high?",
                     {"level": x, "answer": "yes" if x > 0.5 else "no"})
                for k, x in enumerate(levels)]

    def observation(self, item: Item, resources: Any) -> dict[str, Any]:
        obs = {"item_id": item.item_id, "question": item.question}
        if resources.get("signals"):
            obs["signals"] = {"level": item.data["level"]}
        return obs


PARSE = ("def parse(text, item):\n    line = text.strip().splitlines()[0] if text.strip() "
         "else ''\n    return line.replace('Answer:', '').strip()\n")
PICK_ROUTE = '''import re


def route(obs, state):
    c = obs.get("candidates") or []
    calls = state["calls"]
    if not calls:
        options = "\\n".join(str(i + 1) + ". " + x["name"] for i, x in enumerate(c))
        return {"call_student": {"prompt": "pick", "vars": {"options": options}}}
    if len(calls) == 1:
        m = re.search(r"\\d+", calls[0]["reply"])
        k = int(m.group()) if m else 1
        k = k if 1 <= k <= len(c) else 1
        return {"call_student": {"prompt": "answer", "vars": {"card": c[k - 1]["card"]}}}
    return {"done": True}
'''
PICK = Harness.model_validate({
    "schema": SCHEMA, "setting": "linked", "resources": {"cards": True},
    "prompts": {"pick": "Question: {question}\nWhich entity is shown?\n{options}\n0. None of them",
                "answer": "{card}\nQuestion: {question}\nAnswer with one word."},
    "hooks": {"route": PICK_ROUTE, "parse": PARSE}})
DIAL_ROUTE = '''def route(obs, state):
    if state["calls"]:
        return {"done": True}
    x = obs["signals"]["level"]
    if abs(x - 0.5) > 0.15:
        return {"verdict": "yes" if x > 0.5 else "no"}
    hint = "Verdict hint: " + ("yes" if x > 0.5 else "no")
    return {"call_student": {"prompt": "answer", "vars": {"tool_text": hint}}}
'''
DIAL = Harness.model_validate({
    "schema": SCHEMA, "setting": "dial", "resources": {"signals": True},
    "answer_mode": "verdict",
    "prompts": {"answer": "{tool_text}\nQuestion: {question}\nAnswer with one word."},
    "hooks": {"route": DIAL_ROUTE, "parse": PARSE}})


def scores(harness: Harness, setting: ToySetting, acc: Accuracies,
           intervention: str | None = None) -> dict[str, float]:
    items = setting.items()
    names = {i.question: i.data.get("shown", "") for i in items}
    student = ScriptedStudent(names, acc, seed=1)
    out = {}
    run, _ = (harness, None) if intervention is None else intervene(
        intervention, harness, setting, student, lambda: None)
    with HarnessRuntime(run, setting) as runtime:
        for item in items:
            policy = None
            if intervention is not None:
                _, policy = intervene(intervention, harness, setting, student, lambda: None)
            outcome = runtime.run_item(item, student, policy)
            # a hook error is the harness's fault: wrong (decide withholds the cards
            # this route indexes, which is part of what the intervention costs)
            out[item.item_id] = (0.0 if outcome.status == "hook_error"
                                 else setting.score(outcome.answer or "", item))
    return out


def change(harness, setting, acc, intervention):
    return paired_change(scores(harness, setting, acc), scores(harness, setting, acc,
                                                               intervention), graded=False)


def test_generate_is_harmful_when_naming_is_weak_and_not_when_strong():
    weak = change(PICK, LinkedToy(), Accuracies(pick=0.9, name=0.3), "generate")
    assert weak.delta < -30 and weak.p_value < 0.01
    strong = change(PICK, LinkedToy(), Accuracies(pick=0.6, name=1.0), "generate")
    assert strong.delta > 0


def test_removing_the_pick_is_harmful_when_the_student_picks_better_than_top1():
    good = change(PICK, LinkedToy(), Accuracies(pick=0.95), "select")
    assert good.reference > 80 and abs(good.changed - 50) < 1  # the linker's top 1
    assert good.delta < -30 and good.p_value < 0.01
    poor = change(PICK, LinkedToy(), Accuracies(pick=0.2), "select")
    assert poor.delta > 0


def test_integrate_raw_signals_instead_of_the_verdict_is_harmful():
    result = change(DIAL, DialToy(), Accuracies(read=0.95), "integrate")
    assert result.reference > 90 and result.delta < -20 and result.p_value < 0.01


def test_persist_is_harmful_when_formatting_is_weak_and_neutral_when_perfect():
    weak = change(PICK, LinkedToy(), Accuracies(pick=1.0, format=0.4), "persist")
    assert weak.delta < -20 and weak.p_value < 0.01
    assert change(PICK, LinkedToy(), Accuracies(pick=1.0, format=1.0), "persist").delta <= 0
    # on a verdict harness the verdict becomes a suggestion the student must repeat
    verdicts = change(DIAL, DialToy(), Accuracies(format=0.5), "persist")
    assert verdicts.delta < 0


def test_decide_is_harmful_when_requests_are_missed():
    missed = change(PICK, LinkedToy(), Accuracies(request=0.3), "decide")
    assert missed.delta < -30 and missed.p_value < 0.01
    assert change(PICK, LinkedToy(), Accuracies(request=1.0), "decide").delta == 0


@pytest.mark.parametrize("name", ["decide", "select", "generate", "integrate"])
def test_not_applicable_where_the_harness_has_nothing_to_change(name):
    bare = Harness.model_validate({"schema": SCHEMA, "setting": "dial",
                                   "prompts": {"answer": "{question}"}})
    setting = DialToy()
    student = ScriptedStudent({})
    run, policy = intervene(name, bare, setting, student, lambda: None)
    with HarnessRuntime(run, setting) as runtime, pytest.raises(NotApplicable):
        runtime.run_item(setting.items()[0], student, policy)


def test_persist_not_applicable_without_contract_or_parser():
    bare = Harness.model_validate({"schema": SCHEMA, "setting": "dial",
                                   "prompts": {"answer": "{question}"}})
    with pytest.raises(NotApplicable):
        intervene("persist", bare, DialToy(), ScriptedStudent({}), lambda: None)


def test_paired_change_numbers():
    a = {f"i{k}": 1.0 for k in range(10)}
    b = {**a, **{f"i{k}": 0.0 for k in range(9)}, "extra": 1.0}
    b["i9"] = 1.0
    result = paired_change({**a, "i0": 0.0}, b, graded=False)
    assert result.n == 10 and result.test == "mcnemar"
    assert result.p_value == pytest.approx(0.0078125)  # 8 lost, 0 won
    graded = paired_change({"x": 0.9, "y": 0.5, "z": 0.2}, {"x": 0.8, "y": 0.5, "z": 0.1},
                           graded=True)
    assert graded.test == "sign" and graded.delta == pytest.approx(-20 / 3)
    assert graded.low <= graded.delta <= graded.high
