"""The harness section of `tether demo` (demo/harness.py): a real run of bare vs the
bundled docs recipe through runner, store and report, with a scripted student (a test
double) that can only answer when the prompt gives it the page's OCR."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from tether.demo.harness import harness_demo_config, harness_section
from tether.runs.store import RunStore
from tether.systems.compile.settings.docs import ocr_rule

needs_ocr = pytest.mark.skipif(shutil.which("tesseract") is None or shutil.which("bwrap") is None,
                               reason="tesseract-ocr and bubblewrap (scripts/setup.sh)")


def ocr_reader(messages, info) -> str:
    """TEST DOUBLE: with the OCR context frame in the prompt, the docs hooks-only rule's
    answer; with the bare question, a non-answer."""
    text = messages[-1]["content"]
    match = re.search(r"OCR text of the page; may contain errors\):\n(.*)\n\nQuestion: (.*)",
                      text, re.S)
    if match is None:
        return "I do not know"
    return ocr_rule(match.group(2).splitlines()[0], match.group(1)) or "unknown"


def test_config_is_bare_vs_the_recipe_on_the_test_split():
    config = harness_demo_config("local/smollm2-135m", "docs", 20, "bwrap")
    assert config["suites"] == ["harness-docs"] and config["limit"] == 20
    assert [s["name"] for s in config["strategies"]] == ["bare", "human_recipe"]
    assert config["models"]["student"] == "local/smollm2-135m"


@needs_ocr
def test_section_runs_both_arms_prints_scores_and_tokens_and_writes_a_report(tmp_path: Path):
    console = Console(record=True, width=200)
    spec = "scripted:tests.demo.test_harness:ocr_reader"
    summary = harness_section(console, spec, tmp_path / "harness", n_items=3)
    text = console.export_text()
    assert summary["items"] == 3 and summary["matched"] == 3
    assert summary["mean_score"]["bare"] == 0.0
    assert summary["mean_score"]["human_recipe"] > 0.0  # the OCR made it answerable
    assert summary["tokens_per_item"]["bare"] == 4.0  # "I do not know": output tokens only
    assert "mean ANLS: bare 0.000, recipe" in text and "student tokens per item" in text
    rows = [line for line in text.splitlines() if "I do not know" in line]
    assert len(rows) == 3 and all(" 0.00 " in row and " 4 " in row for row in rows)
    assert (tmp_path / "harness" / "report.html").is_file()
    with RunStore.open(tmp_path / "harness") as store:
        records = store.trials()
    assert sorted(r.spec.arm for r in records) == ["bare"] * 3 + ["human_recipe"] * 3
    assert all(r.status == "ok" for r in records)
