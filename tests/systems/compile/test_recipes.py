"""The bundled human recipes (compile/recipes/): each loads and names its setting; the
`slides` recipe reads the ranker's top three slides, passes `tether harness check`, and
turns a student's reply into the answer (test doubles: exact slide text for OCR and a
word-overlap ranker, so no tesseract or MiniLM runs here)."""

from __future__ import annotations

import re

from tether.systems.compile.admissibility import check_harness
from tether.systems.compile.harness import template_fields
from tether.systems.compile.recipes import recipe, recipe_settings
from tether.systems.compile.runtime import HarnessRuntime, score_outcome

from .conftest import RecordingStudent
from .settings.test_slides import PerfectOcrSlides, WordOverlapRanker

SIZES = {"probe": 10, "validation": 4, "test": 6}


def slides_setting() -> PerfectOcrSlides:
    return PerfectOcrSlides(ranker=WordOverlapRanker())


def test_every_setting_has_a_recipe_for_itself():
    assert recipe_settings() == ["docs", "flags", "shapes", "slides", "toy"]
    for name in recipe_settings():
        assert recipe(name).setting == name


def test_slides_recipe_is_the_rankers_top_three_under_the_ocr_frame():
    harness = recipe("slides")
    assert harness.resources == {"pages": {"k": 3, "ranker": "minilm"}}
    assert template_fields(harness.prompts["answer"]) == ["slides", "question"]
    assert harness.prompts["answer"].startswith("Context (OCR text of")
    assert harness.hooks.route and harness.hooks.parse


def test_slides_recipe_is_admissible():
    report = check_harness(recipe("slides").document(), slides_setting(), sizes=SIZES)
    assert report.admissible, report.violations
    assert len(report.smoke) == 10 and all(o["status"] == "answered" for o in report.smoke)


def test_slides_recipe_shows_the_top_three_slides_in_rank_order_and_parses():
    setting = slides_setting()
    items = setting.splits(0, SIZES)["test"][:3]
    student = RecordingStudent(lambda prompt: "Answer: 1,250.\nbecause the table says so")
    with HarnessRuntime(recipe("slides"), setting) as runtime:
        outcomes = [runtime.run_item(item, student) for item in items]
    for item, prompt, outcome in zip(items, student.prompts, outcomes, strict=True):
        pages = setting.observation(item, recipe("slides").resources)["pages"]
        shown = [int(n) - 1 for n in re.findall(r"^Slide (\d+):$", prompt, re.M)]
        assert shown == [p["index"] for p in pages] and len(shown) == 3
        assert all(p["ocr"].strip() in prompt for p in pages)
        assert f"Question: {item.question}" in prompt
        assert (outcome.status, outcome.answer, len(outcome.calls)) == ("answered", "1,250", 1)


def test_slides_recipe_scores_a_right_and_a_wrong_student():
    setting = slides_setting()
    items = setting.splits(0, SIZES)["test"]
    gold = {item.question: setting.gold(item)[0] for item in items}
    right = RecordingStudent(lambda p: next(g for q, g in gold.items() if q in p))
    wrong = RecordingStudent("I cannot tell")
    with HarnessRuntime(recipe("slides"), setting) as runtime:
        good = [score_outcome(setting, i, runtime.run_item(i, right)) for i in items]
        bad = [score_outcome(setting, i, runtime.run_item(i, wrong)) for i in items]
    assert good == [1.0] * len(items) and bad == [0.0] * len(items)
