"""The fonts the geometry browser may use: only Debian's fonts-dejavu-core and
fonts-liberation files, so text boxes do not depend on what else a machine has."""

from __future__ import annotations

from pathlib import Path

#: Debian fonts-dejavu-core and fonts-liberation: the only fonts the browser may use.
DEJAVU_DIR = "/usr/share/fonts/truetype/dejavu"
DEJAVU_CORE = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf",
               "DejaVuSansMono-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf"]
LIBERATION_DIR = "/usr/share/fonts/truetype/liberation"


def write_fontconfig(directory: Path) -> Path:
    """A fonts.conf whose only fonts are the pinned files; system aliases still apply.

    conf.d is included for its family aliases (Arial -> Liberation Sans, sans-serif
    -> DejaVu Sans); any font file it or another dir would add is rejected, because
    acceptfont wins over rejectfont.
    """
    directory.mkdir(parents=True, exist_ok=True)
    accepted = [f"{DEJAVU_DIR}/{name}" for name in DEJAVU_CORE] + [f"{LIBERATION_DIR}/*"]
    globs = "\n".join(f"      <glob>{g}</glob>" for g in accepted)
    conf = directory / "fonts.conf"
    conf.write_text(f"""<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>{DEJAVU_DIR}</dir>
  <dir>{LIBERATION_DIR}</dir>
  <cachedir>{directory / "cache"}</cachedir>
  <include ignore_missing="yes">/etc/fonts/conf.d</include>
  <selectfont>
    <rejectfont><glob>*</glob></rejectfont>
    <acceptfont>
{globs}
    </acceptfont>
  </selectfont>
</fontconfig>
""")
    return conf
