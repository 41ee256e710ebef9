"""GEPA's variants (compiler/gepa_variants.py): each changes only the parts it names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.systems.compile.compiler.conftest import recorded, toy_config
from tether.systems.compile.compiler import Compiler
from tether.systems.compile.compiler.gepa_arm import PROMPT_PART, HarnessAdapter
from tether.systems.compile.compiler.gepa_variants import (
    GEPA_VARIANTS,
    OUTPUT,
    PARSE,
    RESOURCES,
    candidate_of,
    harness_of,
    searched_parts,
)
from tether.systems.compile.harness import Harness, bare_harness
from tether.systems.compile.report import hc_numbers
from tether.testing.scripted_models import ScriptedModel
from tether.testing.scripted_student import ScriptedStudent
from tether.testing.scripted_teacher import ScriptedTeacher

BARE = bare_harness("toy")
HOOK = "def parse(text, item):\n    return text.strip()\n"
#: a new value for every component a variant may have
EDITS = {"answer": "Hint: {hint}\n{question}\nAnswer with one word.",
         RESOURCES: '{"hint": true}',
         OUTPUT: '{"answer_mode": "suggest", "decode": {"max_tokens": 17, "temperature": 0.0}}',
         PARSE: HOOK}


def changed_parts(harness: Harness) -> set[str]:
    """The parts of `harness` that differ from the bare harness's."""
    doc, bare = harness.document(), BARE.document()
    parts = {k for k in ("prompts", "resources", "decode", "answer_mode") if doc[k] != bare[k]}
    parts |= {f"hooks.{k}" for k in {*doc["hooks"], *bare["hooks"]}
              if doc["hooks"].get(k) != bare["hooks"].get(k)}
    return parts


@pytest.mark.parametrize("variant", GEPA_VARIANTS)
def test_a_variant_takes_from_the_candidate_only_what_it_searches(variant: str) -> None:
    seed = candidate_of(BARE, variant)
    assert harness_of(BARE, seed, variant)[0] == BARE  # the seed is the bare harness
    edited = {name: EDITS[name] for name in seed}
    harness, why = harness_of(BARE, edited, variant)
    assert why == [] and harness is not None
    assert changed_parts(harness) == set(searched_parts(variant))
    # a part the variant does not search is refused, not taken
    for name in {RESOURCES, OUTPUT, PARSE} - set(seed):
        refused, why = harness_of(BARE, {**seed, name: EDITS[name]}, variant)
        assert refused is None and why == [f"{name}: not searched by the {variant} variant"]


def test_a_component_that_does_not_parse_is_a_violation_not_a_crash() -> None:
    seed = candidate_of(BARE, "structured")
    assert harness_of(BARE, {**seed, RESOURCES: "[1]"}, "structured")[1] == [
        "@resources: not a JSON object"]
    assert harness_of(BARE, {**seed, OUTPUT: '{"hooks": {}}'}, "structured")[1] == [
        "@output: only decode and answer_mode may be set"]
    harness, why = harness_of(BARE, {**seed, OUTPUT: '{"decode": {"max_tokens": 0}}'},
                              "structured")
    assert harness is None and why[0].startswith("schema: decode.max_tokens")


def _editing_teacher() -> Any:
    """TEST DOUBLE: the scripted teacher, whose GEPA reflections replace whichever part
    they are asked about with its EDITS value (named by the reflection prompt)."""
    scripted = ScriptedTeacher({"0": "v1"})

    def script(messages: list[dict[str, Any]], info: Any) -> str:
        prompt = str(messages[-1]["content"])
        if PROMPT_PART in prompt:
            return "```\n" + EDITS["answer"] + "\n```"
        for name, marker in ((RESOURCES, "(its resources"), (OUTPUT, "(its decoding"),
                             (PARSE, "(its parse hook)")):
            if marker in prompt:
                return "```\n" + EDITS[name] + "\n```"
        return scripted(prompt)
    return script


@pytest.mark.parametrize("variant", GEPA_VARIANTS)
def test_each_variant_searches_only_what_it_names(tmp_path: Path, variant: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[Harness] = []
    harness = HarnessAdapter.harness

    def recording(self: HarnessAdapter, candidate: Any) -> Any:
        found = harness(self, candidate)
        if found[0] is not None:
            built.append(found[0])
        return found
    monkeypatch.setattr(HarnessAdapter, "harness", recording)
    config = toy_config(tmp_path, rounds=1, comparators="gepa", gepa_variant=variant,
                        gepa_metric_calls=60)
    result = Compiler(config, teacher=ScriptedModel(_editing_teacher()),
                      student=ScriptedModel(ScriptedStudent({}).script)).run()
    # every part the variant names was changed by some candidate, and nothing else was
    assert set().union(*map(changed_parts, built)) == set(searched_parts(variant))
    row = recorded(tmp_path).test
    assert row is not None and "gepa" in row["arms"]
    assert result["gepa"]["variant"] == variant
    gepa = hc_numbers(tmp_path)["builds"][0]["gepa"]
    assert gepa["variant"] == variant and gepa["searched"] == list(searched_parts(variant))
