"""`slides`, a SlideVQA-like setting: questions about a rendered deck of 8-20 slides.

Resource: `pages` (`{"k": 3, "ranker": "minilm"}`): every slide is OCR'd (tesseract through
the cached engine, so a second pass runs none), the MiniLM ranker (ranker.py) orders the
slides by cosine similarity of their OCR text to the question, and the observation gets
the top k as `[{"index", "score", "ocr"}]` (`index` is the slide's 0-based position in the
deck). Metric: exact match (normalised: case, punctuation, articles; a number's gold
includes its grouped and plain forms, "1,250" and "1250").

Questions need one slide (a value in a table, the head of a department, the region with
the highest value) or two (the sum of a value over both years, the year in which a value
was higher). Every metric table has a twin for the other year with the same rows, so the
ranker's top 1 is often the wrong year.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from tether.errors import ConfigError
from tether.systems.compile.settings.base import (
    Item,
    answers_of,
    int_option,
    item_id,
    make_splits,
    new_item,
    new_observation,
    png_bytes,
    rng_for,
)
from tether.systems.compile.settings.metrics import exact_match
from tether.systems.compile.settings.ocr import OcrEngine, WithOcrEngine
from tether.systems.compile.settings.slides_deck import (
    DEPARTMENTS,
    METRICS,
    REGIONS,
    company_names,
    contact_sheet,
    grouped,
    make_deck,
    person_names,
    render_slide,
)

NAME = "slides"
DEFAULT_K = 3
RANKERS = ("minilm",)
#: question kinds and their shares; "sum" and "compare" need two slides
KINDS: tuple[tuple[str, float], ...] = (
    ("value", 0.3), ("leader", 0.15), ("max", 0.15), ("sum", 0.2), ("compare", 0.2))


def _number_forms(value: int) -> tuple[str, ...]:
    return tuple(dict.fromkeys((grouped(value), str(value))))


def make_question(deck: dict[str, Any], rng: np.random.Generator
                  ) -> tuple[str, str, tuple[str, ...], list[int]]:
    """(kind, question, gold answers, indices of the slides that answer it)."""
    names, shares = zip(*KINDS, strict=True)
    kind = str(rng.choice(names, p=np.asarray(shares)))
    slides = deck["slides"]
    if kind == "leader":
        dept = list(deck["leaders"])[int(rng.integers(len(deck["leaders"])))]
        where = [i for i, s in enumerate(slides) if s["kind"] == "leaders"]
        return kind, f"Who is the head of {dept}?", (deck["leaders"][dept],), where
    table = deck["tables"][int(rng.integers(len(deck["tables"])))]
    metric, year = table["metric"], table["year"]
    region = deck["regions"][int(rng.integers(len(deck["regions"])))]
    m = metric.lower()
    twin = next(t for t in deck["tables"] if t["metric"] == metric and t["year"] != year)
    y0, y1 = deck["years"]
    where_one = [_table_slide(slides, metric, year)]
    where_two = sorted([_table_slide(slides, metric, y0), _table_slide(slides, metric, y1)])
    if kind == "value":
        q = f"What were the {m} of the {region} region in {year}?" if m.endswith("s") \
            else f"What was the {m} of the {region} region in {year}?"
        return kind, q, _number_forms(table["values"][region]), where_one
    if kind == "max":
        values = table["values"]
        top = sorted(values.values(), reverse=True)
        if len(top) > 1 and top[0] == top[1]:  # a tie has no single answer: ask a value
            return kind, f"What was the {m} of the {region} region in {year}?", \
                _number_forms(values[region]), where_one
        best = max(values, key=values.get)
        return kind, f"Which region had the highest {m} in {year}?", (best,), where_one
    if kind == "sum":
        total = table["values"][region] + twin["values"][region]
        return (kind, f"What were the combined {m} of the {region} region over {y0} and {y1}?",
                _number_forms(total), where_two)
    a = next(t for t in deck["tables"] if t["metric"] == metric and t["year"] == y0)
    b = next(t for t in deck["tables"] if t["metric"] == metric and t["year"] == y1)
    higher = y0 if a["values"][region] > b["values"][region] else y1
    return (kind, f"In which year were the {m} of the {region} region higher, {y0} or {y1}?",
            (str(higher),), where_two)


def _table_slide(slides: list[dict[str, Any]], metric: str, year: int) -> int:
    prefix = f"{metric} by region, {year}"
    return next(i for i, s in enumerate(slides) if s["title"].startswith(prefix))


class SlidesSetting(WithOcrEngine):
    """Rendered decks, OCR through `engine`, slides ranked by `ranker` (both default to
    the shared cached tesseract engine and the shared MiniLM ranker)."""

    name = NAME
    offered_resources: tuple[str, ...] = ("pages",)

    def __init__(self, engine: OcrEngine | None = None, ranker: Any | None = None) -> None:
        self._engine = engine
        self._ranker = ranker

    @property
    def ranker(self) -> Any:
        if self._ranker is None:
            from tether.systems.compile.settings.ranker import default_ranker

            self._ranker = default_ranker()
        return self._ranker

    def make_item(self, seed: int, split: str, index: int) -> Item:
        rng = rng_for(NAME, seed, split, index)
        deck = make_deck(rng)
        kind, question, answers, evidence = make_question(deck, rng)
        return new_item(item_id(NAME, seed, split, index), question, answers, split,
                        deck=deck, kind=kind, evidence=evidence)

    def splits(self, seed: int, sizes: Mapping[str, int] | None = None) -> dict[str, list[Item]]:
        return make_splits(self.make_item, seed, sizes)

    def slide_images(self, item: Item) -> list[bytes]:
        deck = item.data["deck"]
        return [png_bytes(render_slide(s, deck["style"], i))
                for i, s in enumerate(deck["slides"])]

    def image(self, item: Item) -> bytes:
        deck = item.data["deck"]
        return png_bytes(contact_sheet([render_slide(s, deck["style"], i)
                                        for i, s in enumerate(deck["slides"])]))

    def slide_texts(self, item: Item) -> list[str]:
        """Each slide's OCR text, in deck order (what the ranker and a harness read)."""
        deck = item.data["deck"]
        return [self._slide_text(deck["style"], slide, i)
                for i, slide in enumerate(deck["slides"])]

    def _slide_text(self, style: Any, slide: dict[str, Any], index: int) -> str:
        # a slide is drawn from its spec, the deck style and its position: they key the memo
        return self.engine.text_of({"slides": [style, slide, index]},
                                   lambda: png_bytes(render_slide(slide, style, index)))

    def ranked_pages(self, item: Item, k: int) -> list[dict[str, Any]]:
        texts = self.slide_texts(item)
        return [{"index": i, "score": score, "ocr": texts[i]}
                for i, score in self.ranker.rank(item.question, texts)[:k]]

    def observation(self, item: Item, resources: Mapping[str, Any]) -> dict[str, Any]:
        obs = new_observation(NAME, item, resources, self.offered_resources)
        spec = resources.get("pages")
        if spec:
            ranker = spec.get("ranker", "minilm") if isinstance(spec, Mapping) else "minilm"
            if ranker not in RANKERS:
                raise ConfigError(f"slides has no ranker {ranker!r}",
                                  hint=f"rankers: {', '.join(RANKERS)}")
            k = int_option(spec, "k", DEFAULT_K)
            if k < 1:
                raise ConfigError(f"pages.k must be at least 1, got {k}")
            obs["pages"] = self.ranked_pages(item, k)
        return obs

    def score(self, answer: str, item: Item) -> float:
        return exact_match(answer, answers_of(item))

    def gold(self, item: Item) -> list[str]:
        return list(answers_of(item))

    def inventory(self) -> list[str]:
        """Company and person names a deck can show."""
        return [*company_names(), *person_names()]

    def public_vocabulary(self) -> list[str]:
        """The category labels the questions themselves use: regions (the answer of
        "which region"), departments and metric names."""
        return [*REGIONS, *DEPARTMENTS, *(m for m, _, _ in METRICS)]

    def hooks_only_resources(self) -> dict[str, Any]:
        return {"pages": {"k": DEFAULT_K, "ranker": "minilm"}}

    def hooks_only_answer(self, obs: Mapping[str, Any]) -> str:
        pages = obs.get("pages") or []
        return page_rule(str(obs["question"]), str(pages[0]["ocr"]) if pages else "")


_VALUE = re.compile(r"\d[\d,]*")


def page_rule(question: str, ocr: str) -> str:
    """The best simple rule with no student: on the top-ranked slide's OCR, the line that
    names the question's region (or department) -> the number (or name) on it. It copies
    from one line of one slide; it does not add or compare across slides or rows, as a
    verdict hook that only looks things up would not. The `slides` hooks-only baseline."""
    lines = [line.strip() for line in ocr.splitlines() if line.strip()]
    m = re.search(r"head of (\w+)", question)
    if m:
        for line in lines:
            if re.search(rf"head of {m.group(1)}", line, re.I):
                return line.lstrip("-— ").split(" - ")[0].strip()
        return ""
    m = re.search(r"the (\w+) region", question)
    if m is None:
        return ""
    for line in lines:
        if line.lower().startswith(m.group(1).lower()):
            found = _VALUE.findall(line)
            return found[-1] if found else ""
    return ""
