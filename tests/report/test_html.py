import dataclasses
from pathlib import Path

from tether.report import build_report, write_report
from tether.runs.store import RunStore


def render(run_dir: Path, out: Path, **kw) -> Path:
    with RunStore.open(run_dir) as store:
        return write_report(build_report(store, **kw), store, out)


def test_writes_index_plots_and_a_page_per_trial(pass_report):
    out = pass_report
    assets = out.parent / "report_assets"
    html = out.read_text()
    for section in ('id="summary"', 'id="paired"', 'id="within-trial"', 'id="plots"',
                    'id="trials"', 'id="run"'):
        assert section in html
    pngs = sorted(p.name for p in (assets / "plots").glob("*.png")
                  if not p.name.startswith("spend_"))  # one per arm: tests/report/test_spend.py
    # the paired verdicts are 0 or 1 on every task (both seeds agree): four corners, which
    # the per-task tables show exactly, so no paired-dots plot
    assert pngs == ["scaling.png", "tokens.png"]
    for png in (assets / "plots").glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pages = list((assets / "trials").glob("*.html"))
    assert len(pages) == 60
    assert html.count('report_assets/trials/') == 60
    page = pages[0].read_text()
    assert 'href="../../report.html"' in page and "Calls (1)" in page


def test_everything_model_written_is_escaped(pass_report):
    out = pass_report
    escaped = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"
    for path in [out, *(out.parent / "report_assets" / "trials").glob("*.html")]:
        text = path.read_text()
        assert "<script" not in text
    trial = next((out.parent / "report_assets" / "trials").glob("*.html")).read_text()
    assert escaped in trial  # prompt and output shown, as text


def test_overlays_and_screenshots_are_copied_and_shown(defect_run, tmp_path):
    out = render(defect_run, tmp_path / "report.html")
    blobs = list((out.parent / "report_assets" / "blobs").glob("*.png"))
    assert len(blobs) == 2
    page = next((out.parent / "report_assets" / "trials").glob("*.html")).read_text()
    assert page.count('<img class="evidence" src="../blobs/') == 4  # metric + its row
    assert 'alt="overlay"' in page and 'alt="screenshot"' in page
    assert "fewer defects" in out.read_text()


def test_rerun_replaces_old_assets(defect_run, tmp_path):
    out = tmp_path / "report.html"
    render(defect_run, out)
    stale = out.parent / "report_assets" / "trials" / "stale.html"
    stale.write_text("old")
    render(defect_run, out)
    assert not stale.exists()


def test_inline_overlay_evidence_reaches_the_trial_page(tmp_path):
    import base64

    from .conftest import make_record, png_bytes

    record = make_record(0, "page", 0, "single_shot", None, n_defects=1, instrument="geometry",
                         raw={"overlay_png_b64": base64.b64encode(png_bytes()).decode()})
    run = tmp_path / "run"
    with RunStore(run, create=True) as store:
        store.commit_trial(record)  # the store moves the PNG into a blob: overlay_digest
    out = render(run, tmp_path / "report.html")
    page = next((out.parent / "report_assets" / "trials").glob("*.html")).read_text()
    assert '<img class="evidence" src="../blobs/' in page and 'alt="overlay"' in page
    assert "_png_b64" not in page


def test_a_run_of_errors_only_still_renders(tmp_path):
    from .conftest import make_record

    run = tmp_path / "run"
    with RunStore(run, create=True) as store:
        for i in range(3):
            store.commit_trial(make_record(i, f"t{i}", 0, "single_shot", None, status="error"))
    with RunStore.open(run) as store:
        report = build_report(store)
        out = write_report(report, store, tmp_path / "report.html")
    (row,) = report.numbers["summary"]
    assert (row["errors"], row["score"]["n"], row["score"]["value"]) == (3, 0, None)
    assert report.numbers["paired"] == []
    assert "No other arm to compare" in out.read_text()


def test_native_tool_calls_show_on_the_trial_page(tmp_path):
    from .conftest import make_record

    record = make_record(0, "t", 0, "agent", None)
    call = {"id": "call_9", "type": "function",
            "function": {"name": "bash", "arguments": '{"command": "ls /app"}'}}
    record.calls[0] = dataclasses.replace(record.calls[0], **{
        "output": "", "tool_calls": [call],
        "messages": [{"role": "assistant", "content": None, "tool_calls": [call]},
                     {"role": "tool", "tool_call_id": "call_9", "content": "{\"returncode\": 0}"}]})
    run = tmp_path / "run"
    with RunStore(run, create=True) as store:
        store.commit_trial(record)
    out = render(run, tmp_path / "report.html")
    page = next((out.parent / "report_assets" / "trials").glob("*.html")).read_text()
    assert page.count("[tool call call_9] bash(") == 2  # in the prompt and as the output
    assert "[answers call_9]" in page
