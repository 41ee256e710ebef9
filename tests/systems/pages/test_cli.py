"""`tether measure`: output, JSON shape, exit codes, directories, overlays, errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.systems.pages.geometry.conftest import PLANTED
from tether.cli import main
from tether.systems.pages.geometry import browser as browser_mod


def run(*args: str):
    return CliRunner().invoke(main, ["measure", *args], catch_exceptions=False)


@pytest.mark.browser
def test_defects_exit_1_with_the_issue_json_shape():
    res = run(str(PLANTED / "overlap_cascade.html"), "--json")
    assert res.exit_code == 1, res.output
    out = json.loads(res.output)
    assert set(out) == {"n_defects", "counts", "defects", "profile", "instrument_version"}
    assert out["n_defects"] == 1 and out["counts"] == {"text_overlap": 1}
    assert out["profile"] == "default" and out["instrument_version"].endswith("default-2")
    d = out["defects"][0]
    assert d["kind"] == "text_overlap" and d["location"] == "1920x1080"
    ev = d["evidence"]
    assert len(ev["elements"]) == 4 and ev["viewport"] == [1920, 1080]
    assert {"selector", "label", "box"} <= set(ev["elements"][0]) and ev["suggested_fix"]


@pytest.mark.browser
def test_reference_profile_counts_pairs():
    res = run(str(PLANTED / "overlap_cascade.html"), "--json", "--profile", "reference")
    assert res.exit_code == 1
    assert json.loads(res.output)["counts"] == {"text_overlap": 3}


@pytest.mark.browser
def test_clean_page_exits_0_and_says_clean():
    res = run(str(PLANTED / "clean.html"))
    assert res.exit_code == 0, res.output
    assert "clean" in res.output


@pytest.mark.browser
def test_table_groups_defects_by_kind(tmp_path):
    res = run(str(PLANTED / "carousel_clip.html"), "--profile", "reference")
    assert res.exit_code == 1
    assert "3 defect(s)" in res.output and "out_of_bounds" in res.output
    assert res.output.count("overflow") >= 1


@pytest.mark.browser
def test_directory_measures_every_html_file(tmp_path):
    for name in ("clean.html", "nowrap_truncated.html", "expected.json"):
        shutil.copy(PLANTED / name, tmp_path / name)
    res = run(str(tmp_path), "--json")
    assert res.exit_code == 1, res.output
    out = json.loads(res.output)
    assert [f["path"].rsplit("/", 1)[1] for f in out["files"]] == [
        "clean.html", "nowrap_truncated.html"]
    assert out["n_defects"] == 1 and out["files"][1]["counts"] == {"overflow": 1}


@pytest.mark.browser
def test_animation_frames_and_overlay(tmp_path):
    png = tmp_path / "anim.png"
    res = run(str(PLANTED / "anim_css.html"), "--frames", "0,1000,2000", "--overlay", str(png),
              "--json")
    assert res.exit_code == 1, res.output
    out = json.loads(res.output)
    assert out["counts"] == {"text_overlap": 1}
    assert out["defects"][0]["location"] == "1920x1080 @ 1000ms"
    assert out["overlay"] == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args,needle", [
    (["--frames", "0,x"], "bad frame times"),
    (["--modality", "figure", "--frames", "0,100"], "--frames applies to animations"),
])
def test_usage_errors_exit_2_with_one_line_and_hint(args, needle):
    res = CliRunner().invoke(main, ["measure", str(PLANTED / "clean.html"), *args])
    assert res.exit_code == 2
    assert needle in res.output and "hint:" in res.output


def test_render_error_exits_2_never_clean(monkeypatch):
    monkeypatch.setattr(browser_mod, "_HOST", browser_mod.BrowserHost(executable="/nope"))
    monkeypatch.setattr(browser_mod, "_HOST_PID", __import__("os").getpid())
    res = run(str(PLANTED / "clean.html"), "--json")
    browser_mod._HOST.close()
    assert res.exit_code == 2
    out = json.loads(res.output)
    assert "no Chromium" in out["error"] and "n_defects" not in out


@pytest.mark.browser
def test_compare_lists_profile_differences_with_reasons():
    res = run(str(PLANTED / "carousel_clip.html"), "--compare", "--json")
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)
    assert {(d["kind"], d["reference"], d["default"]) for d in row["differences"]} == {
        ("out_of_bounds", 1, 0), ("overflow", 2, 0)}
    assert all(d["reasons"] == {"clipped": d["reference"]} for d in row["differences"])
    text = run(str(PLANTED / "clean.html"), "--compare")
    assert text.exit_code == 0 and "the profiles agree" in text.output


@pytest.mark.browser
def test_modality_aliases_and_unknown_modality():
    assert run(str(PLANTED / "clean.html"), "--modality", "slides").exit_code == 0
    res = CliRunner().invoke(main, ["measure", str(PLANTED / "clean.html"), "--modality", "x"])
    assert res.exit_code == 2 and "unknown modality 'x'" in res.output


# -- a page on disk is measured with its folder (its stylesheets, images, fonts) --------
SITE_PAGE = """<!doctype html><html><head><link rel="stylesheet" href="{css}"></head>
<body><h1>A headline that is far too long for its box</h1></body></html>"""


@pytest.mark.browser
def test_page_folder_stylesheet_is_loaded_so_its_overflow_is_found(tmp_path):
    # clean (exit 0, 0 defects) when only the file's text was loaded
    (tmp_path / "index.html").write_text(SITE_PAGE.format(css="style.css"))
    (tmp_path / "style.css").write_text("h1 { width: 300px; white-space: nowrap; }\n")
    res = run(str(tmp_path / "index.html"), "--json")
    assert res.exit_code == 1, res.output
    out = json.loads(res.output)
    assert out["counts"] == {"overflow": 1}
    assert out["defects"][0]["evidence"]["detail"]["reason"] == "own_box"
    png = tmp_path / "o.png"
    assert run(str(tmp_path / "index.html"), "--overlay", str(png)).exit_code == 1
    assert png.read_bytes()[:4] == b"\x89PNG"
    compared = run(str(tmp_path), "--compare", "--json")
    assert compared.exit_code == 0 and json.loads(compared.output)[0]["path"].endswith(
        "index.html")


@pytest.mark.browser
def test_missing_local_stylesheet_is_reported_not_silent(tmp_path):
    (tmp_path / "index.html").write_text(SITE_PAGE.format(css="missing.css"))
    res = run(str(tmp_path / "index.html"))
    assert res.exit_code == 1, res.output
    assert "missing_resource" in res.output and "missing.css" in res.output


@pytest.mark.browser
def test_a_folder_measured_concurrently_gives_the_one_at_a_time_results(tmp_path):
    for name in ("overlap_cascade.html", "carousel_clip.html", "edges.html", "clean.html",
                 "nowrap_truncated.html"):
        shutil.copy(PLANTED / name, tmp_path / name)
    one = run(str(tmp_path), "--json", "--concurrency", "1", "--profile", "reference")
    many = run(str(tmp_path), "--json", "--concurrency", "5", "--profile", "reference")
    assert one.exit_code == many.exit_code == 1, many.output
    assert json.loads(one.output) == json.loads(many.output)
    assert json.loads(many.output)["n_defects"] == 3 + 3 + 4
    assert browser_mod.get_browser_host().concurrency == 5


def test_progress_bar_counts_files_on_a_terminal(monkeypatch):
    import io

    from rich.console import Console

    import tether.systems.pages.cli as measure_cli

    out = io.StringIO()
    monkeypatch.setattr(measure_cli, "err_console", Console(file=out, force_terminal=True))
    with measure_cli.ProgressBar(3) as advance:
        for _ in range(3):
            advance()
    assert "3/3" in out.getvalue()
    quiet = io.StringIO()  # one file, or stderr not a terminal: no bar
    monkeypatch.setattr(measure_cli, "err_console", Console(file=quiet))
    with measure_cli.ProgressBar(3) as advance:
        advance()
    assert quiet.getvalue() == ""


def test_default_lanes_follow_the_profile_and_the_batch_size(monkeypatch):
    from tether.systems.pages import cli as measure_cli
    monkeypatch.setitem(measure_cli.DEFAULT_CONCURRENCY, "default", 2)
    pick = measure_cli.default_concurrency
    # a lane costs one or two reference measurements to open: one per 5 pages at most
    assert [pick("reference", n) for n in (1, 5, 6, 64, 80, 1000)] == [1, 1, 2, 13, 16, 16]
    # the default profile is CPU-bound: one lane per core
    assert [pick("default", n) for n in (1, 9, 64)] == [1, 2, 2]


@pytest.mark.parametrize(("data", "why"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a text file"),
    (b"Meeting notes\n- ship on Friday\n", "no HTML element in it"),
])
def test_a_file_that_is_no_html_page_is_refused_in_one_line(tmp_path, data, why):
    """PNG bytes named .html and plain text are refused (exit 2), never "clean"; the
    browser is not started for them."""
    page = tmp_path / "page.html"
    page.write_bytes(data)
    res = CliRunner().invoke(main, ["measure", str(page)])
    assert res.exit_code == 2
    assert f"error: {page}: " in res.output and why in res.output
    assert "Traceback" not in res.output and "clean" not in res.output


@pytest.mark.browser
def test_in_a_folder_each_refused_file_is_a_row_saying_why(tmp_path):
    shutil.copy(PLANTED / "clean.html", tmp_path / "a.html")
    (tmp_path / "b.html").write_text("just some notes\n")
    res = run(str(tmp_path), "--json")
    assert res.exit_code == 2
    rows = {Path(r["path"]).name: r for r in json.loads(res.output)["files"]}
    assert rows["a.html"]["n_defects"] == 0
    assert "no HTML element in it" in rows["b.html"]["error"]
    compared = run(str(tmp_path), "--compare", "--json")
    assert compared.exit_code == 2
    rows = {Path(r["path"]).name: r for r in json.loads(compared.output)}
    assert rows["a.html"]["differences"] == []
    assert "no HTML element in it" in rows["b.html"]["error"]
