"""`tether demo`: a real (scripted-model) run through runner, sandbox, store and report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.runs.store import RunStore

GOOD = "```python\ndef is_even(n):\n    return n % 2 == 0\n```"
BAD = "```python\ndef is_even(n):\n    return n % 2 == 1\n```"

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap not installed (scripts/setup.sh installs it)")


def _demo(tmp_path: Path, answer: str, visual: bool = False) -> tuple[str, Path]:
    spec = "scripted:" + json.dumps([answer] * 8)
    out = tmp_path / "demo-run"
    res = CliRunner().invoke(main, ["demo", "--model", spec, "--tasks", "1",
                                    "--visual" if visual else "--no-visual",
                                    "--harness-items", "0",
                                    "--out", str(out)])
    assert res.exit_code == 0, res.output
    return " ".join(res.output.split()), out


@needs_bwrap
def test_demo_scores_come_from_the_sandboxed_hidden_checks(tmp_path: Path) -> None:
    text, out = _demo(tmp_path, GOOD)
    assert "pass rate: single-shot 100%, reviewed 100%" in text
    assert (out / "report.html").is_file() and f"report: {out / 'report.html'}" in text
    with RunStore.open(out) as store:
        recs = store.trials()
    assert {r.spec.arm for r in recs} == {"single_shot", "proposer_reviewer"}
    assert all(r.metric is not None and r.metric.instrument == "execution" for r in recs)
    # an already-passing draft costs no review
    reviewed = next(r for r in recs if r.spec.arm == "proposer_reviewer")
    assert [c.role for c in reviewed.calls] == ["proposer"]


@needs_bwrap
def test_demo_reports_failures_as_they_are(tmp_path: Path) -> None:
    text, out = _demo(tmp_path, BAD)
    assert "pass rate: single-shot 0%, reviewed 0%" in text
    with RunStore.open(out) as store:
        reviewed = next(r for r in store.trials() if r.spec.arm == "proposer_reviewer")
    assert "reviewer" in {c.role for c in reviewed.calls}
    assert reviewed.passed is False and reviewed.metric is not None
    assert reviewed.metric.defects, "failing checks are listed as defects"


@needs_bwrap
@pytest.mark.browser
@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium not installed")
def test_demo_measures_the_example_pages_and_shows_their_overlays(tmp_path: Path) -> None:
    text, out = _demo(tmp_path, GOOD, visual=True)
    assert "bundled example pages, measured" in text
    with RunStore.open(out) as store:
        rows = {r["page"]: r for r in store.meta("measured_pages")}
    assert rows["figure_pipeline_overlap.html"]["counts"] == {"text_overlap": 1}
    assert all(r["n_defects"] and r["overlay_digest"] and not r["error"] for r in rows.values())
    overlays = sorted((out / "examples").glob("*.png"))
    assert len(overlays) == 4 and all(p.read_bytes().startswith(b"\x89PNG") for p in overlays)
    html = (out / "report.html").read_text()
    assert "Measured pages" in html
    shown = [line for line in html.splitlines() if "overlay of" in line]
    assert len(shown) == 4
    for line in shown:
        src = line.split('src="', 1)[1].split('"', 1)[0]
        assert (out / src).is_file(), src


def test_an_errored_page_row_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A page the browser could not measure shows the reason in its row, not a bare
    'error' (issue 40: every demo row says why it errored)."""
    import tether.systems.pages as pages
    from tether.cli import make_console
    from tether.demo.cli import measure_examples

    rows = [{"page": "web_x.html", "modality": "web", "n_defects": None, "counts": {},
             "error": "BrowserUnavailable: chromium not found (hint: apt install chromium)",
             "overlay": None, "overlay_error": None, "overlay_png_b64": None},
            {"page": "slide_y.html", "modality": "slide", "n_defects": 2,
             "counts": {"overflow": 2}, "error": None, "overlay": None,
             "overlay_error": "TimeoutError: drawing the overlay timed out",
             "overlay_png_b64": None}]
    monkeypatch.setattr(pages, "measure_example_pages", lambda out: rows)
    console = make_console()
    with console.capture() as cap, RunStore(tmp_path / "run", create=True) as store:
        measure_examples(console, tmp_path / "examples", store)
    text = " ".join(cap.get().split())
    assert "BrowserUnavailable: chromium not found" in text
    assert "failed: TimeoutError: drawing the overlay timed out" in text


def test_an_errored_trial_row_says_why() -> None:
    from tether.core import TrialRecord, TrialSpec
    from tether.demo.cli import _verdict

    spec = TrialSpec(suite="code", task_id="t", strategy="single_shot", models={})
    rec = TrialRecord(trial_id="x", index=0, spec=spec, status="error",
                      error_kind="ModelError", error_message="401 Unauthorized: bad key")
    assert _verdict(rec) == "[yellow]error[/] (ModelError: 401 Unauthorized: bad key)"
