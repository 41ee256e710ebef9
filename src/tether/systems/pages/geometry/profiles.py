"""Profiles (which rules) and modalities (which canvas, which viewports, which frames).

`reference` is the study's instrument, kept to reproduce published numbers: its
rules, its wall-clock waits, its element boxes. `default` is the better instrument
(see probe_default.py for what it fixes) with time under control.
"""

from __future__ import annotations

from dataclasses import dataclass

from tether.errors import ConfigError
from tether.systems.pages.geometry.probe_default import PROBE_DEFAULT_JS
from tether.systems.pages.geometry.probe_reference import PROBE_REFERENCE_JS

MODALITIES = ("figure", "slide", "web", "animation")
#: the study's default frame times when a task names none.
DEFAULT_FRAMES_MS = (0, 1000, 2000, 3000, 4000)
CANVAS = (1920, 1080)
WEB_VIEWPORTS = ((1920, 1080), (375, 812))


@dataclass(frozen=True)
class Profile:
    name: str
    version: str
    probe_js: str
    controlled_time: bool
    #: whether blocked network use and navigations away count as defects (the study
    #: counted neither; both are still blocked and recorded in the observation's raw).
    counts_external: bool


PROFILES = {
    "reference": Profile("reference", "reference-1", PROBE_REFERENCE_JS,
                         controlled_time=False, counts_external=False),
    "default": Profile("default", "default-2", PROBE_DEFAULT_JS,
                       controlled_time=True, counts_external=True),
}

#: the study's names for modalities, accepted as aliases.
MODALITY_ALIASES = {"figures": "figure", "diagram": "figure", "diagrams": "figure",
                    "slides": "slide", "webpage": "web", "webpages": "web",
                    "animations": "animation"}


def get_profile(name: str) -> Profile:
    if name not in PROFILES:
        raise ConfigError(f"unknown geometry profile {name!r}",
                          hint=f"choose one of: {', '.join(PROFILES)}")
    return PROFILES[name]


def normalize_modality(name: str) -> str:
    modality = MODALITY_ALIASES.get(name, name)
    if modality not in MODALITIES:
        raise ConfigError(f"unknown modality {name!r}",
                          hint=f"choose one of: {', '.join(MODALITIES)}")
    return modality


def viewports_for(modality: str) -> tuple[tuple[int, int], ...]:
    return WEB_VIEWPORTS if modality == "web" else (CANVAS,)


def parse_frames(text: str | list | tuple | None) -> tuple[int, ...] | None:
    """'0,1000,2000' or a list of numbers -> frame times in ms (None when not given)."""
    if text is None or text == "":
        return None
    items = text.split(",") if isinstance(text, str) else list(text)
    try:
        frames = tuple(int(float(str(x).strip())) for x in items if str(x).strip())
    except ValueError:
        raise ConfigError(f"bad frame times {text!r}",
                          hint="give milliseconds separated by commas, e.g. 0,1000,2000") from None
    if not frames or any(f < 0 for f in frames):
        raise ConfigError(f"bad frame times {text!r}", hint="give non-negative milliseconds")
    return frames
