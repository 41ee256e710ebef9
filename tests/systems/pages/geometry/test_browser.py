"""The shared browser: blocked network, concurrency, missing Chromium (fonts: test_fonts.py)."""

from __future__ import annotations

import pytest

from tether.core.artifact import Artifact
from tether.core.task import Task
from tether.instruments.base import InstrumentEnv
from tether.systems.pages.geometry.browser import BrowserHost
from tether.systems.pages.geometry.instrument import GeometryInstrument


def test_network_requests_are_blocked_and_recorded(browser_host):
    async def load():
        async with browser_host.page(800, 600) as s:
            await s.page.set_content(
                '<link rel="stylesheet" href="https://fonts.example.invalid/css">'
                '<img src="http://127.0.0.1:9/x.png"><p>hi</p>', wait_until="load")
            return list(s.blocked), await s.page.evaluate("document.body.innerText")
    blocked, text = browser_host.run(load())
    assert {(b.via, b.url) for b in blocked} == {
        ("stylesheet", "https://fonts.example.invalid/css"), ("image", "http://127.0.0.1:9/x.png")}
    assert text.strip() == "hi"


@pytest.mark.browser  # its own BrowserHost, not the shared fixture
def test_artifacts_are_measured_concurrently_in_one_browser():
    host = BrowserHost(concurrency=3)
    try:
        inst = GeometryInstrument(GeometryInstrument.Params(profile="reference"), host=host)
        obs = inst.measure_many([("<p style='margin:200px'>Hello</p>", "figure", None)] * 6)
    finally:
        host.close()
    assert all(o.ok and o.score == 0 for o in obs)
    # each page waits for network idle (500 ms), so the bound of 3 is reached
    assert host.max_in_flight == 3 and host.in_flight == 0


def test_missing_chromium_is_an_error_observation_not_zero_defects():
    host = BrowserHost(executable="/nonexistent/chromium")
    try:
        inst = GeometryInstrument(host=host)
        task = Task(id="t", suite="s", prompt="p", artifact_kind="html", metric="geometry")
        obs = inst.observe(Artifact(kind="html", text="<p>x</p>"), task, InstrumentEnv())
    finally:
        host.close()
    assert obs.error and "no Chromium" in obs.error and "hint:" in obs.error
    assert obs.score is None and obs.passed is None and obs.defects == []


def test_warm_spare_pages_are_fresh_for_every_artifact(browser_host):
    async def visit(html):
        async with browser_host.page(375, 812) as s:
            await s.page.set_content(html, wait_until="load")
            seen = await s.page.evaluate("() => [window.__mark || null, innerWidth]")
            await s.page.evaluate("() => { window.__mark = 1; }")
            return seen, list(s.blocked), s.context

    first = browser_host.run(visit('<img src="https://example.invalid/a.png">'))
    second = browser_host.run(visit("<p>plain</p>"))
    assert first[0] == second[0] == [None, 375]  # nothing carried over, viewport applied
    assert [b.url for b in first[1]] == ["https://example.invalid/a.png"] and second[1] == []
    assert first[2] is not second[2]  # a new context each time
