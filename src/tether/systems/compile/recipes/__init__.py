"""The human recipes: one bundled harness per setting, written by us (not compiled).

They follow the paper's published recipes (its Tables 10 and 40) where they fit:
- `docs`: page OCR (4,000 characters) in a context frame, the paper's DocVQA objective
  ("one word, a number or a short phrase copied from the page"), 96 decode tokens;
- `flags`: InfoSeek's recognise-then-read: the student picks one of the linker's three
  candidates by number ("0. None of them", read as the linker's top 1), then reads the
  picked card under the paper's card frame;
- `shapes`: BLINK's fixed verdict rule on measurements: the dominant colour mask answers
  colour questions when it covers at least 60% of the shape; every other item goes to
  the student with the measurements as text;
- `slides`: SlideVQA's "read the three slides selected by the text ranker": the MiniLM
  ranker's top 3 slides (k = 3), each as "Slide N:" and its OCR text in rank order, under
  the docs context frame ("OCR text of the three slides ...; may contain errors"), with
  the paper's short-answer objective and one line saying that a two-slide question
  combines their values; 64 decode tokens (the paper prints no verbatim SlideVQA prompt);
- `toy`: the toy test double's hint, for tests.
All share one parser: the first non-empty line, a leading "Answer:" and a final period
dropped. Each passes `tether harness check`.
"""

from __future__ import annotations

from importlib import resources

from tether.errors import ConfigError
from tether.systems.compile.harness import Harness

__all__ = ["recipe", "recipe_settings"]


def recipe_settings() -> list[str]:
    """The settings that have a bundled recipe."""
    return sorted(p.name.removesuffix(".json") for p in resources.files(__name__).iterdir()
                  if p.name.endswith(".json"))


def recipe(setting: str) -> Harness:
    """The bundled human recipe of `setting`; ConfigError when it has none."""
    path = resources.files(__name__) / f"{setting}.json"
    if not path.is_file():
        raise ConfigError(f"no bundled human recipe for setting {setting!r}",
                          hint=f"recipes: {', '.join(recipe_settings())}")
    return Harness.model_validate_json(path.read_text(encoding="utf-8"))
