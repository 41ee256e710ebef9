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


def _demo(tmp_path: Path, answers: list[str], visual: bool = False,
          *extra: str) -> tuple[str, Path]:
    # a test double: each trial's model answers from the list, in order; best-of-4's draft
    # is the single-shot request, served from the run's cache, so its samples get the list
    spec = "scripted:" + json.dumps(answers)
    out = tmp_path / "demo-run"
    res = CliRunner().invoke(main, ["demo", "--model", spec, "--tasks", "1",
                                    "--visual" if visual else "--no-visual", "--no-scene",
                                    "--out", str(out), *extra])
    assert res.exit_code == 0, res.output
    return res.output, out


@needs_bwrap
def test_demo_scores_come_from_the_sandboxed_hidden_checks(tmp_path: Path) -> None:
    output, out = _demo(tmp_path, [GOOD] * 4)
    text = " ".join(output.split())
    assert "pass rate: single-shot 100% [21, 100], best-of-4 100% [21, 100]" in text
    assert "0 improved, 0 regressed of 1 tasks" in text and "no gain at this scale" in text
    assert (out / "report.html").is_file() and f"report: {out / 'report.html'}" in text
    with RunStore.open(out) as store:
        recs = store.trials()
    assert {r.spec.arm for r in recs} == {"single_shot", "best_of_4"}
    assert all(r.metric is not None and r.metric.instrument == "execution" for r in recs)
    assert all(r.metric.raw["checks"] == "hidden" for r in recs if r.metric)
    best = next(r for r in recs if r.spec.arm == "best_of_4")
    # the draft is the single-shot request: one generation (the cache) serves both arms
    assert [c.cache_hit for c in best.calls] == [True, False, False, False]
    assert best.extra["selected_index"] == 0  # a draft passing the visible checks stays
    # nothing but the run directory is written (no config file beside it)
    assert [p.name for p in tmp_path.iterdir()] == ["demo-run"]


@needs_bwrap
def test_a_sample_the_visible_checks_pick_is_an_improvement_on_the_hidden_ones(
        tmp_path: Path) -> None:
    # single-shot: BAD; best-of-4: the cached BAD draft, then samples BAD, BAD, GOOD
    output, out = _demo(tmp_path, [BAD, BAD, GOOD], False, "--json")
    summary = json.loads(output[output.rindex("\n{") + 1:])  # the last thing printed
    h = summary["headline"]
    assert (h["improved"], h["regressed"], h["pairs"], h["p"]) == (1, 0, 1, 1.0)
    assert h["pass_rate"] == {"single_shot": 0.0, "best_of_4": 1.0}
    assert summary["run_dir"] == str(out) and summary["report"].endswith("report.html")
    with RunStore.open(out) as store:
        best = next(r for r in store.trials() if r.spec.arm == "best_of_4")
    assert best.extra["verifier_scores"] == [0.0, 0.0, 0.0, 1.0]
    assert best.extra["selected_index"] == 3 and best.passed


@needs_bwrap
def test_demo_reports_failures_as_they_are(tmp_path: Path) -> None:
    output, out = _demo(tmp_path, [BAD] * 4)
    text = " ".join(output.split())
    assert "pass rate: single-shot 0% [0, 79], best-of-4 0% [0, 79]" in text
    assert "no gain at this scale" in text
    with RunStore.open(out) as store:
        best = next(r for r in store.trials() if r.spec.arm == "best_of_4")
    assert best.passed is False and best.metric is not None
    assert best.metric.defects, "failing checks are listed as defects"


@needs_bwrap
@pytest.mark.browser
@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium not installed")
def test_demo_measures_the_example_pages_and_shows_their_overlays(tmp_path: Path) -> None:
    text, out = _demo(tmp_path, [GOOD] * 4, True)
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
    from tether.demo.headline import verdict

    spec = TrialSpec(suite="code", task_id="t", strategy="single_shot", models={})
    rec = TrialRecord(trial_id="x", index=0, spec=spec, status="error",
                      error_kind="ModelError", error_message="401 Unauthorized: bad key")
    assert verdict(rec) == "[yellow]error[/] (ModelError: 401 Unauthorized: bad key)"
