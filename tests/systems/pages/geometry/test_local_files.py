"""A page on disk is measured with its own folder: served inside it, blocked outside it.

`measure(..., base_dir=folder)` serves the page's relative URLs from the folder through
the host's request route; without a folder (model-written artifacts in runs) they stay
blocked and reported as `external_resource`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.systems.pages.geometry.local_site import png
from tether.core.artifact import Artifact
from tether.core.task import Task
from tether.instruments.base import InstrumentEnv
from tether.systems.pages.geometry import GeometryInstrument
from tether.systems.pages.geometry.local_files import LocalFolder, content_type

#: the instrument's declared options
Options = GeometryInstrument.Params

#: the headline fits its box unless style.css makes the box narrow and forbids wrapping
HEADLINE_PAGE = """<!doctype html><html><head><link rel="stylesheet" href="style.css"></head>
<body><h1>A headline that is far too long for its box</h1></body></html>"""
NARROW_CSS = "h1 { width: 300px; white-space: nowrap; font-size: 48px; }\n"


def site(tmp_path: Path, html: str, **files: str | bytes) -> Path:
    """tmp_path/site/index.html plus files (nested names with '__' for '/')."""
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text(html)
    for name, body in files.items():
        path = root / name.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.write_bytes if isinstance(body, bytes) else path.write_text)(body)
    return root


def test_stylesheet_beside_the_page_is_loaded_and_its_defect_found(tmp_path, browser_host):
    root = site(tmp_path, HEADLINE_PAGE, **{"style.css": NARROW_CSS})
    inst = GeometryInstrument(host=browser_host)
    obs = inst.measure(HEADLINE_PAGE, "slide", base_dir=root)
    assert obs.ok and obs.raw["counts"] == {"overflow": 1}, obs.raw
    assert obs.defects[0].evidence["detail"]["reason"] == "own_box"
    assert obs.raw["served_files"] == ["style.css"] and obs.raw["blocked_requests"] == []


def test_without_a_folder_the_stylesheet_is_blocked_and_reported(tmp_path, browser_host):
    # a run's artifact is a single document: the same page, style.css in the cwd
    # or not, gets no stylesheet and reports its attempt to load one
    site(tmp_path, HEADLINE_PAGE, **{"style.css": NARROW_CSS})
    task = Task(id="t", suite="s", prompt="p", artifact_kind="html", metric="geometry",
                data={"modality": "slide"})
    cwd = os.getcwd()
    os.chdir(tmp_path / "site")
    try:
        obs = GeometryInstrument(host=browser_host).observe(
            Artifact(kind="html", text=HEADLINE_PAGE), task, InstrumentEnv())
    finally:
        os.chdir(cwd)
    assert obs.ok and obs.raw["counts"] == {"external_resource": 1}, obs.raw
    assert obs.raw["blocked_requests"] == [
        {"via": "stylesheet", "url": "http://tether.invalid/style.css"}]
    assert obs.raw["served_files"] == [] and obs.raw["missing_resources"] == []


def test_an_image_beside_the_page_loads_with_its_size(tmp_path, browser_host):
    page = '<!doctype html><body style="margin:0"><img id="i" src="img/pic.png"></body>'
    root = site(tmp_path, page, **{"img__pic.png": png(123, 45)})

    async def box() -> dict:
        async with browser_host.page(1920, 1080) as session:
            await session.load(page, "load", 15_000, LocalFolder(root))
            return await session.page.evaluate(
                "() => { const i = document.getElementById('i'); const r = "
                "i.getBoundingClientRect(); return {w: r.width, h: r.height, "
                "natural: [i.naturalWidth, i.naturalHeight], done: i.complete}; }")
    got = browser_host.run(box())
    assert got == {"w": 123, "h": 45, "natural": [123, 45], "done": True}
    obs = GeometryInstrument(host=browser_host).measure(page, "figure", base_dir=root)
    assert obs.ok and obs.passed and obs.raw["served_files"] == ["img/pic.png"]


def test_paths_leaving_the_folder_are_blocked_never_served(tmp_path, browser_host):
    # if either outside file were served, its rule would make the headline overflow
    page = """<!doctype html><html><head>
<link rel="stylesheet" href="link.css"><link rel="stylesheet" href="..%2Fsecret.css">
<link rel="stylesheet" href="../secret.css"></head>
<body><h1>A headline that is far too long for its box</h1>
<script>fetch('..%2Fsecret.txt').then((r) => r.text())
  .then((t) => { document.title = t; }, () => {});</script></body></html>"""
    (tmp_path / "secret.css").write_text(NARROW_CSS)
    (tmp_path / "secret.txt").write_text("the secret")
    root = site(tmp_path, page)
    (root / "link.css").symlink_to(tmp_path / "secret.css")
    obs = GeometryInstrument(host=browser_host).measure(page, "slide", base_dir=root)
    assert obs.ok, obs.error
    blocked = {b["url"].rsplit("/", 1)[1]: b["via"] for b in obs.raw["blocked_requests"]}
    assert blocked == {"link.css": "stylesheet", "..%2Fsecret.css": "stylesheet",
                       "..%2Fsecret.txt": "fetch"}
    # "../secret.css" is normalised by the browser to /secret.css: inside, and missing
    assert [m["path"] for m in obs.raw["missing_resources"]] == ["secret.css"]
    assert obs.raw["counts"] == {"external_resource": 3, "missing_resource": 1}
    assert obs.raw["served_files"] == []


def test_missing_stylesheet_is_a_missing_resource_defect(tmp_path, browser_host):
    page = HEADLINE_PAGE.replace("style.css", "missing.css")
    root = site(tmp_path, page)
    obs = GeometryInstrument(host=browser_host).measure(page, "slide", base_dir=root)
    assert obs.ok and obs.raw["counts"] == {"missing_resource": 1}
    (d,) = obs.defects
    assert d.kind == "missing_resource" and d.evidence["path"] == "missing.css"
    assert d.evidence["via"] == "stylesheet" and "missing.css" in d.message
    assert d.evidence["suggested_fix"]
    # the reference profile, like the study, lists it without counting it
    ref = GeometryInstrument(Options(profile="reference"), host=browser_host).measure(
        page, "slide", base_dir=root)
    assert ref.ok and ref.defects == [] and len(ref.raw["missing_resources"]) == 1


def test_lookup_decides_inside_missing_and_outside(tmp_path):
    root = site(tmp_path, "x", **{"a b.css": "", "sub__f.js": ""})
    (tmp_path / "out.txt").write_text("no")
    (root / "esc").symlink_to(tmp_path)
    (root / "loop").symlink_to(root / "loop")
    folder = LocalFolder(root)
    url = "http://tether.invalid/"
    assert folder.lookup(url + "a%20b.css").verdict == "served"
    assert folder.lookup(url + "sub/f.js?v=3#x").path == (root / "sub/f.js").resolve()
    assert folder.lookup(url + "sub/").verdict == "missing"
    assert folder.lookup(url + "nope.png").reason == "no such file"
    for bad in ("..%2Fout.txt", "sub/..%2F..%2Fout.txt", "esc/out.txt", "%2F..%2Fout.txt"):
        assert folder.lookup(url + bad).verdict == "outside", bad
    # leading slashes are dropped: an "absolute" path names a path below the folder
    assert folder.lookup(url + "%2Fetc%2Fpasswd").path == (root / "etc/passwd").resolve()
    assert folder.lookup(url + "loop").verdict in ("outside", "missing")


@pytest.mark.parametrize("name,expected", [
    ("a.css", "text/css; charset=utf-8"), ("a.js", "text/javascript; charset=utf-8"),
    ("a.json", "application/json; charset=utf-8"), ("a.woff2", "font/woff2"),
    ("a.ttf", "font/ttf"), ("a.png", "image/png"), ("a.svg", "image/svg+xml; charset=utf-8"),
    ("a.bin", "application/octet-stream")])
def test_content_types(name, expected):
    assert content_type(Path(name)) == expected
