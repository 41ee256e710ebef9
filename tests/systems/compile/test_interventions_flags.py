"""`generate` on the real `flags` setting: its student-named lookup, and the paper's sign
with the bundled flags recipe and the scripted student (a test double): when naming is
weak, a student-named lookup is harmful against picking among the linker's three."""

from __future__ import annotations

import pytest

pytest.importorskip("flagpy")

from tether.stats import paired_change  # noqa: E402
from tether.systems.compile.interventions import intervene  # noqa: E402
from tether.systems.compile.recipes import recipe  # noqa: E402
from tether.systems.compile.runtime import HarnessRuntime  # noqa: E402
from tether.systems.compile.settings.flags import FlagsSetting, top1_rule  # noqa: E402
from tether.systems.compile.settings.flags_data import facts  # noqa: E402
from tether.testing.scripted_student import Accuracies, ScriptedStudent  # noqa: E402

N = 60


class CardReader(ScriptedStudent):
    """TEST DOUBLE: the scripted student, reading the asked field of the FIRST card in
    the prompt (flags cards are "ISO alpha-3: XYZ" lines, not "Fact:" lines)."""

    def _answer(self, prompt: str, q: str) -> str:
        value = top1_rule(q, [{"card": prompt}]) or "unsure"
        return value if self._coin(self.acc.read, q, "read") else "unsure"


@pytest.fixture(scope="module")
def flags_items():
    setting = FlagsSetting()
    return setting, setting.splits(0, {"probe": 0, "validation": 0, "test": N})["test"]


def test_lookup_finds_a_named_country_and_nothing_for_a_wrong_name():
    setting = FlagsSetting()
    found = setting.lookup("  japan ", {"cards": {"budget_chars": 40}})
    assert found["name"] == "Japan" and found["similarity"] == 1.0
    assert found["card"].startswith("Name: Japan") and len(found["card"]) <= 40
    assert setting.lookup("JPN", {"cards": True})["name"] == "Japan"
    assert setting.lookup("Nowhereland", {"cards": True}) is None
    assert setting.lookup("Japa", {"cards": True}) is None  # no fuzzy match


def scores(setting, items, acc, intervention=None):
    harness = recipe("flags")
    out = {}
    with HarnessRuntime(harness, setting) as runtime:
        for k, item in enumerate(items):
            shown = facts(item.data["code"])["name"]
            student = CardReader({item.question: shown}, acc, seed=k)  # per-item coins
            policy = None
            if intervention:
                _, policy = intervene(intervention, harness, setting, student, lambda: None)
            outcome = runtime.run_item(item, student, policy)
            assert outcome.status == "answered", outcome.error
            out[item.item_id] = setting.score(outcome.answer or "", item)
    return out


@pytest.fixture(scope="module")
def reference(flags_items):
    """The recipe as written: naming accuracy plays no part in it, so one run serves."""
    setting, items = flags_items
    return scores(setting, items, Accuracies(pick=0.9))


def test_generate_on_flags_is_harmful_when_naming_is_weak(flags_items, reference):
    setting, items = flags_items
    weak = Accuracies(pick=0.9, name=0.2)
    change = paired_change(reference, scores(setting, items, weak, "generate"),
                           graded=False)
    assert change.delta < -20 and change.p_value < 0.05


def test_generate_on_flags_helps_when_naming_is_perfect(flags_items, reference):
    # the named lookup always finds the shown country; the pick can only choose among
    # the linker's three, which miss it on some items
    setting, items = flags_items
    strong = Accuracies(pick=0.9, name=1.0)
    change = paired_change(reference, scores(setting, items, strong, "generate"),
                           graded=False)
    assert change.delta > 30 and change.p_value < 0.01
