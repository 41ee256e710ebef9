"""The measured document is the artifact: navigations away are blocked and reported.

A page that sends the browser elsewhere (a script setting location, a meta refresh, a
reload, a form submission) keeps its own document, which is measured as it stands; the
attempt is a `navigation` defect on the default profile (the reference profile records
it without counting it, like network use). Same-document navigations (hash changes,
history.pushState, as reveal.js and impress.js decks use) are not navigations away.
"""

from __future__ import annotations

import pytest

from tether.systems.pages.geometry.instrument import GeometryInstrument

OVERLAP = ('<p style="position:absolute;left:100px;top:100px;font:40px sans-serif">First</p>'
           '<p style="position:absolute;left:110px;top:105px;font:40px sans-serif">Second</p>')

AWAY = {
    "script to a server": ('<script>location.href = "http://127.0.0.1:9/"</script>',
                           "http://127.0.0.1:9/"),
    "script to about:blank": ('<script>location.href = "about:blank"</script>', "about:blank"),
    "meta refresh elsewhere": ('<meta http-equiv="refresh" content="0;url=about:blank">',
                               "about:blank"),
    "meta refresh to a server": (
        '<meta http-equiv="refresh" content="0;url=http://127.0.0.1:9/next">',
        "http://127.0.0.1:9/next"),
    "meta refresh reload": ('<meta http-equiv="refresh" content="0">', None),
    "delayed reload": ("<script>setTimeout(() => location.reload(), 50)</script>", None),
    "form submitted while parsing": (
        "<form action='http://127.0.0.1:9/f'></form><script>document.forms[0].submit()</script>",
        "http://127.0.0.1:9/f"),
    "form requestSubmit": (
        "<form action='about:blank'></form><script>document.forms[0].requestSubmit()</script>",
        "about:blank"),
    "blob document": ("<script>location.href = URL.createObjectURL(new Blob(['<p>other</p>'],"
                      " {type: 'text/html'}))</script>", "blob:"),
}


@pytest.mark.parametrize("case", sorted(AWAY))
@pytest.mark.parametrize("profile", ["default", "reference"])
def test_navigation_away_is_blocked_and_the_page_itself_measured(browser_host, profile, case):
    snippet, target = AWAY[case]
    # The script sits first, so a navigation that stopped the parser would lose the texts.
    obs = GeometryInstrument(GeometryInstrument.Params(profile=profile), host=browser_host).measure(
        f"<!DOCTYPE html><html><head></head><body>{snippet}{OVERLAP}</body></html>", "figure")
    assert obs.ok, obs.error
    assert obs.raw["counts"].get("text_overlap") == 1
    navigations = obs.raw["navigations"]
    assert len(navigations) >= 1
    if target:
        assert navigations[0].startswith(target)
    nav_defects = [d for d in obs.defects if d.kind == "navigation"]
    if profile == "default":
        assert len(nav_defects) == len(navigations)
        assert obs.raw["counts"]["navigation"] == len(navigations)
        assert "measured as it stands" in nav_defects[0].message
        assert "external_resource" not in obs.raw["counts"]
    else:
        assert nav_defects == []
        assert set(obs.raw["counts"]) == {"text_overlap"}


SAME_DOCUMENT = {
    "hash change": "<script>location.hash = '#/slide/2'</script>",
    "pushState": "<script>history.pushState({slide: 2}, '', '#/2')</script>",
    "replaceState": "<script>history.replaceState({}, '', '?step=3')</script>",
    "link to an anchor": '<a id="go" href="#part2">go</a><script>go.click()</script>',
    "form handled by its script": ('<form onsubmit="event.preventDefault()"></form>'
                                   "<script>document.forms[0].requestSubmit()</script>"),
}


@pytest.mark.parametrize("case", sorted(SAME_DOCUMENT))
@pytest.mark.parametrize("profile", ["default", "reference"])
def test_same_document_navigation_is_no_defect(browser_host, profile, case):
    obs = GeometryInstrument(GeometryInstrument.Params(profile=profile), host=browser_host).measure(
        f"<body>{SAME_DOCUMENT[case]}{OVERLAP}</body>", "figure")
    assert obs.ok, obs.error
    assert obs.raw["counts"] == {"text_overlap": 1}
    assert obs.raw["navigations"] == []


def test_web_and_animation_pages_keep_their_document(browser_host):
    html = f'<body><script>setTimeout(() => location.href = "about:blank", 500)</script>{OVERLAP}'
    inst = GeometryInstrument(GeometryInstrument.Params(profile="default"), host=browser_host)
    web = inst.measure(html, "web")
    anim = inst.measure(html, "animation", (0, 1000))
    for obs in (web, anim):
        assert obs.ok, obs.error
        assert obs.raw["counts"]["text_overlap"] == 2  # each viewport / each frame
        assert obs.raw["counts"]["navigation"] == 1
