"""tether's text is its own: no shipped text repeats a paper's sentences.

Words are lowercase runs of letters and digits (punctuation, markup and line breaks are
ignored), so a sentence copied with new formatting is still found. Names and numbers are
facts and short runs are language; long runs are copying:
- the behaviour rubrics (every description, short form, definition and example of every
  bundled rubric file; the ids and names are the paper's, kept) share no run of 6 or more
  words with the turn-level best-of-N paper;
- no other shipped text (src/, docs/, experiments/, README.md) shares a run of 12 or more
  words with any paper in ../shared/papers.
Both skip cleanly where ../shared is absent (a user's machine); CI has it.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

import tests.conftest as shared

REPO = Path(__file__).resolve().parents[1]
SHIPPED = ("src", "docs", "experiments")
TEXT_SUFFIXES = {".py", ".md", ".json", ".toml", ".j2", ".txt", ".html", ".yml", ".yaml",
                 ".sh", ".css", ".js"}
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def runs(text: str, n: int) -> set[tuple[str, ...]]:
    ws = words(text)
    return {tuple(ws[i:i + n]) for i in range(len(ws) - n + 1)}


def papers() -> dict[str, str]:
    folder = shared.REFERENCE_ROOT.parent / "papers"
    found = {p.name: p.read_text(encoding="utf-8", errors="replace")
             for p in sorted(folder.glob("*.txt"))} if folder.is_dir() else {}
    if not found:
        pytest.skip(f"the papers are not at {folder} (present in CI)")
    return found


def shipped_files() -> list[Path]:
    files = [p for top in SHIPPED for p in sorted((REPO / top).rglob("*"))
             if p.is_file() and p.suffix in TEXT_SUFFIXES and "egg-info" not in p.parts]
    return [*files, REPO / "README.md"]


def test_the_rubrics_share_no_six_word_run_with_paper_003():
    from tether.runs.judge.rubrics import BUNDLED

    paper = next(text for name, text in papers().items() if name.startswith("003_"))
    theirs = runs(paper, 6)
    copied = []
    for filename in BUNDLED.values():
        data = json.loads((resources.files("tether.runs.judge") / "rubrics" / filename)
                          .read_text(encoding="utf-8"))
        texts = [("description", data["description"])]
        for s in data["sets"]:
            for r in s["rubrics"]:
                texts += [(f"{r['id']}.{k}", r[k]) for k in ("short", "definition", "example")]
        copied += [f"{filename} {where}: {' '.join(sorted(runs(text, 6) & theirs)[0])}"
                   for where, text in texts if runs(text, 6) & theirs]
    assert not copied, "\n".join(copied)


def test_no_shipped_text_shares_a_twelve_word_run_with_a_paper():
    theirs = {name: runs(text, 12) for name, text in papers().items()}
    copied = []
    for path in shipped_files():
        ours = runs(path.read_text(encoding="utf-8", errors="replace"), 12)
        for name, paper_runs in theirs.items():
            common = ours & paper_runs
            if common:
                copied.append(f"{path.relative_to(REPO)} ~ {name}: {' '.join(min(common))}")
    assert not copied, "\n".join(copied)


def test_the_run_finder_sees_through_formatting():
    copied = "Grounding must hold,\non BOTH sides of the (interaction) loop!"
    assert runs(copied, 6) & runs("grounding must hold on both sides of the loop", 6)
