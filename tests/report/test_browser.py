"""The report in a real browser: headless Debian Chromium driven by Playwright."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright import sync_api

from tether.report import build_report, write_report
from tether.runs.store import RunStore

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


def open_page(browser, path: Path):
    """Load a file:// page; return it with the console errors and page errors seen."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
    page.goto(path.as_uri(), wait_until="load")
    return page, errors


def images_loaded(page) -> list[tuple[str, int]]:
    return page.eval_on_selector_all(
        "img", "els => els.map(e => [e.getAttribute('src'), e.complete ? e.naturalWidth : 0])")


def render(run_dir: Path, out: Path) -> Path:
    with RunStore.open(run_dir) as store:
        return write_report(build_report(store), store, out)


def test_report_tables_and_plots_render_without_console_errors(browser, pass_report):
    out = pass_report
    page, errors = open_page(browser, out)
    summary = page.locator("#summary table tbody tr")
    assert summary.count() == 3
    assert "30.0% [14.5, 51.9] (6/20)" in summary.nth(0).inner_text()
    paired = page.locator("#paired > table tbody tr")  # the per-task tables follow it
    assert paired.count() == 2
    assert page.locator("#within-trial table tbody tr").count() == 2
    images = images_loaded(page)
    spend = [src for src, _ in images if "/spend_" in src]  # one per arm (Spend section)
    # scaling and tokens; the paired verdicts are corners, shown by the per-task tables
    assert len(images) - len(spend) == 2 and len(spend) == page.locator(
        "#spend figure").count() > 0
    assert all(width > 0 for _, width in images), images
    assert page.locator("#trials table tbody tr").count() == 60
    # A trial page opens from its link and shows its call and observation.
    page.locator("#trials a").first.click()
    page.wait_for_load_state("load")
    assert page.locator(".call").count() == 1
    assert page.locator(".observation").count() == 2  # metric card + its row
    assert errors == []
    page.close()


def test_trial_page_shows_overlays(browser, defect_run, tmp_path):
    out = render(defect_run, tmp_path / "report.html")
    trial = next((tmp_path / "report_assets" / "trials").glob("*.html"))
    page, errors = open_page(browser, trial)
    images = images_loaded(page)
    assert len(images) == 4 and all(width > 0 for _, width in images), images
    page.close()
    index, index_errors = open_page(browser, out)
    assert "fewer defects" in index.locator("#paired").inner_text()
    assert all(width > 0 for _, width in images_loaded(index))
    assert errors == [] and index_errors == []
    index.close()


def test_the_first_screen_leads_with_the_answer_and_the_per_task_view_filters(
        browser, pass_report):
    page, errors = open_page(browser, pass_report)  # a 1400 x 1000 window
    headline = page.locator("#headline")
    box = headline.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 1000, "below the first screen"
    text = headline.inner_text()
    assert "scripted:[]" in text and "self_loop @ 500 against single_shot" in text
    assert "cost / trial" in text and headline.locator("tbody tr").count() == 3
    per_task = page.locator("details.per-task").first
    rows = per_task.locator("tbody tr")

    def shown() -> int:
        return sum(1 for i in range(rows.count()) if rows.nth(i).is_visible())

    assert shown() == 20
    for label, expected in (("better", 6), ("worse", 2), ("changed", 8), ("all", 20)):
        per_task.locator("label", has_text=label).click()
        assert shown() == expected, label
    assert errors == []
    page.close()
