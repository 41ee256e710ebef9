"""Pinned fonts: the fontconfig accepts only the two Debian packages' files, and the
browser resolves families to them."""

from __future__ import annotations

from tether.systems.pages.geometry.fonts import write_fontconfig

WIDTHS_JS = """() => {
  const w = (family) => { const s = document.createElement('span');
    s.style.cssText = `font: 40px ${family}; white-space: nowrap`;
    s.textContent = 'Pinned fonts keep text boxes stable';
    document.body.appendChild(s); return s.getBoundingClientRect().width; };
  return {sans: w("'DejaVu Sans'"), condensed: w("'DejaVu Sans Condensed'"),
          unknown: w("'No Such Font'"), arial: w('Arial'), liberation: w("'Liberation Sans'"),
          generic: w('sans-serif')};
}"""


def test_fontconfig_accepts_only_the_pinned_files(tmp_path):
    text = write_fontconfig(tmp_path).read_text()
    assert "<rejectfont><glob>*</glob></rejectfont>" in text
    assert "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf" in text
    assert "/usr/share/fonts/truetype/liberation/*" in text
    assert "DejaVuSansCondensed" not in text


def test_pinned_fonts_resolve_to_dejavu_and_liberation(browser_host):
    async def widths():
        async with browser_host.page(800, 600) as s:
            await s.page.set_content("<body></body>")
            return await s.page.evaluate(WIDTHS_JS)
    w = browser_host.run(widths())
    # A font outside the two packages (fonts-dejavu-extra's Condensed, installed on the
    # dev machines) is unknown to the browser, like a made-up name (without the pin it
    # renders narrower). Chromium's sans-serif is Arial, i.e. its metric twin Liberation Sans.
    assert w["condensed"] == w["unknown"] != w["sans"]
    assert w["generic"] == w["arial"] == w["liberation"] != w["sans"]
