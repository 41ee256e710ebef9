"""The `slides` setting: decks, questions, pages resource, metric, hooks-only score.

Most tests use two test doubles (defined here) so they run in seconds: `PerfectOcrSlides`
reads each slide's spec text instead of running tesseract, and `WordOverlapRanker` stands
in for MiniLM where the ranker itself is not under test. The real OCR + MiniLM path has
its own tests, skipped only when tesseract or onnxruntime is missing.
"""

from __future__ import annotations

import importlib.util
import io
import re
import shutil

import pytest
from PIL import Image

from tether.errors import ConfigError
from tether.systems.compile import get_setting, setting_names
from tether.systems.compile.settings.base import Item
from tether.systems.compile.settings.hooks_only import hooks_only_score
from tether.systems.compile.settings.ocr import OcrCache, OcrEngine
from tether.systems.compile.settings.slides import SlidesSetting, page_rule
from tether.systems.compile.settings.slides_deck import company_names, person_names

from .conftest import assert_common_contract

needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None,
                                     reason="tesseract-ocr not installed (scripts/setup.sh)")
needs_minilm = pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None,
                                  reason="onnxruntime not installed (pip install -e '.[harness]')")
ALL_PAGES = {"probe": 0, "validation": 0, "test": 40}


def spec_text(slide: dict) -> str:
    body = slide.get("lines") or [f"{a} {b}" for a, b in slide.get("rows", [])]
    return "\n".join([slide["title"], *body])


class PerfectOcrSlides(SlidesSetting):
    """Test double: a slide's "OCR" is its spec text, exactly; no tesseract runs."""

    def slide_texts(self, item: Item) -> list[str]:
        return [spec_text(s) for s in item.data["deck"]["slides"]]


class WordOverlapRanker:
    """Test double of the MiniLM ranker: the share of the query's words a text contains."""

    name = "word-overlap"

    def rank(self, query: str, texts: list[str]) -> list[tuple[int, float]]:
        words = set(query.lower().replace("?", "").split())
        scores = [len(words & set(t.lower().split())) / max(1, len(words)) for t in texts]
        order = sorted(range(len(texts)), key=lambda i: (-scores[i], i))
        return [(i, round(scores[i], 4)) for i in order]


@pytest.fixture
def slides() -> PerfectOcrSlides:
    return PerfectOcrSlides(ranker=WordOverlapRanker())


def test_common_contract_with_pages(slides) -> None:
    assert_common_contract(slides, resources={"pages": {"k": 2}})


def test_common_contract_without_resources(slides) -> None:
    assert_common_contract(slides, resources={})


def test_decks_have_8_to_20_slides_and_every_table_has_a_twin(slides) -> None:
    items = slides.splits(0, ALL_PAGES)["test"]
    sizes = [len(item.data["deck"]["slides"]) for item in items]
    assert min(sizes) >= 8 and max(sizes) <= 20 and len(set(sizes)) > 3
    for item in items:
        deck = item.data["deck"]
        metrics = [t["metric"] for t in deck["tables"]]
        assert all(metrics.count(m) == 2 for m in metrics)  # one table per year
        assert deck["slides"][0]["kind"] == "title"


def test_questions_need_one_or_two_slides_that_hold_the_answer(slides) -> None:
    items = slides.splits(0, ALL_PAGES)["test"]
    kinds = {item.data["kind"] for item in items}
    assert kinds == {"value", "leader", "max", "sum", "compare"}
    for item in items:
        evidence = item.data["evidence"]
        texts = slides.slide_texts(item)
        gold = slides.gold(item)[0]
        if item.data["kind"] in ("sum", "compare"):
            assert len(evidence) == 2
            titles = [item.data["deck"]["slides"][i]["title"] for i in evidence]
            assert titles[0].split(",")[0] == titles[1].split(",")[0]  # one metric, 2 years
        else:
            assert len(evidence) == 1
            assert gold in texts[evidence[0]]


def test_sum_and_compare_gold_follow_from_the_two_tables(slides) -> None:
    for item in slides.splits(3, ALL_PAGES)["test"]:
        deck = item.data["deck"]
        region = re.search(r"the (\w+) region", item.question)
        if item.data["kind"] == "sum":
            metric = [t for t in deck["tables"] if t["metric"].lower() in item.question]
            total = sum(t["values"][region.group(1)] for t in metric)
            assert slides.gold(item) == [f"{total:,}", str(total)] or total < 1000
        if item.data["kind"] == "compare":
            assert slides.gold(item)[0] in item.question


def test_pages_are_the_rankers_top_k_with_their_ocr(slides) -> None:
    item = slides.splits(1, {"probe": 1, "validation": 0, "test": 0})["probe"][0]
    pages = slides.observation(item, {"pages": {"k": 3, "ranker": "minilm"}})["pages"]
    assert len(pages) == 3 and set(pages[0]) == {"index", "score", "ocr"}
    assert [p["score"] for p in pages] == sorted((p["score"] for p in pages), reverse=True)
    texts = slides.slide_texts(item)
    assert all(p["ocr"] == texts[p["index"]] for p in pages)
    assert len(slides.observation(item, {"pages": True})["pages"]) == 3  # default k


def test_bad_pages_options_are_config_errors(slides) -> None:
    item = slides.splits(1, {"probe": 1, "validation": 0, "test": 0})["probe"][0]
    with pytest.raises(ConfigError, match="ranker"):
        slides.observation(item, {"pages": {"ranker": "bm25"}})
    with pytest.raises(ConfigError, match="at least 1"):
        slides.observation(item, {"pages": {"k": 0}})
    with pytest.raises(ConfigError, match="offers no resource"):
        slides.observation(item, {"ocr": {"max_chars": 100}})


def test_exact_match_metric_accepts_grouped_and_plain_numbers(slides) -> None:
    item = next(i for i in slides.splits(0, ALL_PAGES)["test"]
                if i.data["kind"] == "sum" and int(slides.gold(i)[1]) >= 1000)
    grouped, plain = slides.gold(item)
    assert slides.score(grouped, item) == 1.0
    assert slides.score(plain, item) == 1.0
    assert slides.score(f" {grouped}. ", item) == 1.0
    assert slides.score(str(int(plain) + 1), item) == 0.0
    assert slides.score(f"about {plain}", item) == 0.0
    leader = next(i for i in slides.splits(0, ALL_PAGES)["test"] if i.data["kind"] == "leader")
    assert slides.score(slides.gold(leader)[0].upper(), leader) == 1.0
    assert slides.score(slides.gold(leader)[0].split()[0], leader) == 0.0


def test_image_is_a_contact_sheet_of_the_deck(slides) -> None:
    item = slides.splits(0, {"probe": 1, "validation": 0, "test": 0})["probe"][0]
    sheet = Image.open(io.BytesIO(slides.image(item)))
    rows = -(-len(item.data["deck"]["slides"]) // 4)
    assert sheet.size == (4 * 240 + 5 * 4, rows * 135 + (rows + 1) * 4)
    assert len(slides.slide_images(item)) == len(item.data["deck"]["slides"])


def test_inventory_and_vocabulary(slides) -> None:
    inventory = set(slides.inventory())
    assert set(company_names()) | set(person_names()) == inventory
    for item in slides.splits(0, ALL_PAGES)["test"]:
        assert item.data["deck"]["company"] in inventory
        if item.data["kind"] == "leader":
            assert slides.gold(item)[0] in inventory
    assert {"North", "Sales", "Revenue"} <= set(slides.public_vocabulary())


def test_page_rule_copies_one_line_and_does_not_add() -> None:
    ocr = "Revenue by region, 2021 ($K)\nNorth 1,204\nSouth 877\n4"
    assert page_rule("What was the revenue of the North region in 2021?", ocr) == "1,204"
    assert page_rule("What was the revenue of the East region in 2021?", ocr) == ""
    people = "Leadership team\n- Maria Lopez - Head of Sales\n- Omar Kim - Head of Finance"
    assert page_rule("Who is the head of Finance?", people) == "Omar Kim"
    assert page_rule("Which region had the highest revenue in 2021?", ocr) == ""


def test_hooks_only_is_well_below_the_ceiling_even_with_perfect_ocr(slides) -> None:
    items = slides.splits(0, ALL_PAGES)["test"]
    result = hooks_only_score(slides, items)
    assert result.ceiling == 1.0
    assert 0.1 < result.hooks_only < 0.6
    two_slide = [i for i in items if i.data["kind"] in ("sum", "compare")]
    obs = [slides.observation(i, slides.hooks_only_resources()) for i in two_slide]
    assert sum(slides.score(slides.hooks_only_answer(o), i) for o, i in zip(obs, two_slide,
                                                                           strict=True)) == 0


def test_slides_is_a_registered_setting() -> None:
    assert "slides" in setting_names()
    assert isinstance(get_setting("slides"), SlidesSetting)


@needs_tesseract
@needs_minilm
def test_real_ocr_and_minilm_second_pass_runs_no_tesseract(tmp_path) -> None:
    setting = SlidesSetting(engine=OcrEngine(OcrCache(tmp_path)))
    # the first 8-slide deck of seed 0's probe split keeps tesseract's work small
    item = next(i for i in setting.splits(0, {"probe": 50, "validation": 0, "test": 0})["probe"]
                if len(i.data["deck"]["slides"]) == 8)
    first = setting.observation(item, {"pages": {"k": 3}})
    assert setting.engine.calls == 8
    assert len(first["pages"]) == 3 and all(p["ocr"] for p in first["pages"])
    assert setting.image(item) == setting.image(item)

    again = SlidesSetting(engine=OcrEngine(OcrCache(tmp_path)))
    assert again.observation(item, {"pages": {"k": 3}}) == first
    assert again.engine.calls == 0
    # OCR reads the evidence slide's title words
    evidence = item.data["evidence"][0]
    title_word = item.data["deck"]["slides"][evidence]["title"].split()[0]
    assert title_word in setting.slide_texts(item)[evidence]
