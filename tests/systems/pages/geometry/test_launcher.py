"""The launcher script passes one --disable-features / --enable-features to Chromium.

Chromium keeps only the last occurrence of a switch, so a feature tether disables
would otherwise re-enable every feature Playwright disables.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.systems.pages.geometry.browser import BrowserHost
from tether.systems.pages.geometry.launcher import launcher, merged_switches

ARGV = ["--headless", "--disable-features=A,B", "--enable-features=X", "--flag=two words",
        "--disable-features=C", "--js-flags=--max-old-space-size=64"]


def test_the_script_merges_each_feature_switch_into_one(tmp_path: Path):
    echo = tmp_path / "echo-args"
    echo.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    echo.chmod(0o755)
    script = launcher(str(echo), tmp_path / "bin", prefix=["env"])
    out = subprocess.run([str(script), *ARGV], capture_output=True, text=True, check=True)
    passed = out.stdout.splitlines()
    assert passed == merged_switches(ARGV) == [
        "--headless", "--flag=two words", "--js-flags=--max-old-space-size=64",
        "--disable-features=A,B,C", "--enable-features=X"]


def browser_command_line(root: int) -> list[str]:
    """The Chromium browser process (no --type=) among `root`'s descendants."""
    children: dict[int, list[int]] = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        children.setdefault(int(stat[stat.rindex(")") + 2:].split()[1]), []).append(int(name))
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        except OSError:
            argv = []
        if "--remote-debugging-pipe" in argv and not any(a.startswith("--type=") for a in argv):
            return argv
        todo.extend(children.get(pid, []))
    raise AssertionError("no Chromium browser process under this one")


@pytest.mark.browser
def test_chromium_gets_playwrights_disabled_features_and_ours():
    host = BrowserHost(concurrency=1)
    try:
        host.run(host.lanes.close())  # starts the browser
        argv = browser_command_line(os.getpid())
    finally:
        host.close()
    switches = [a for a in argv if a.startswith("--disable-features=")]
    assert len(switches) == 1
    disabled = switches[0].split("=", 1)[1].split(",")
    # ours, and one of Playwright's that matters here (http artifact URLs stay http)
    assert "SpareRendererForSitePerProcess" in disabled and "HttpsUpgrades" in disabled


@pytest.mark.browser
def test_a_new_context_gets_no_omnibox_popup_webui():
    """Headless Chromium 156 gave every context an omnibox popup WebUI page in a renderer
    of its own (most of the CPU of opening a lane); the browser now has only our page."""
    host = BrowserHost(concurrency=1)

    async def targets() -> list[tuple[str, str]]:
        session = await host.open_session(host._browser)
        try:
            cdp = await host._browser.new_browser_cdp_session()
            infos = (await cdp.send("Target.getTargets"))["targetInfos"]
            return [(t["type"], t["url"]) for t in infos]
        finally:
            await session.context.close()
    try:
        found = host.run(targets())
    finally:
        host.close()
    assert [kind for kind, _ in found] == ["page"], found
    assert not any("omnibox" in url for _, url in found)
