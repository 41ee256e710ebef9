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
    paired = page.locator("#paired table tbody tr")
    assert paired.count() == 2
    assert page.locator("#within-trial table tbody tr").count() == 2
    images = images_loaded(page)
    spend = [src for src, _ in images if "/spend_" in src]  # one per arm (Spend section)
    assert len(images) - len(spend) == 6 and len(spend) == page.locator(
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
