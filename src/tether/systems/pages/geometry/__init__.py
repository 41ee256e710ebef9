"""DOM-geometry and temporal instruments for rendered HTML (figures, slides, web, animations).

Importing this package registers the `geometry` instrument.
"""

from tether.systems.pages.geometry.browser import BrowserHost, BrowserUnavailable, get_browser_host
from tether.systems.pages.geometry.defects import KINDS, format_geometry_feedback
from tether.systems.pages.geometry.instrument import GeometryInstrument
from tether.systems.pages.geometry.measure import Measurement, ProbeRun, measure_html
from tether.systems.pages.geometry.profiles import MODALITIES, PROFILES, normalize_modality

__all__ = [
    "KINDS",
    "MODALITIES",
    "PROFILES",
    "BrowserHost",
    "BrowserUnavailable",
    "GeometryInstrument",
    "Measurement",
    "ProbeRun",
    "format_geometry_feedback",
    "get_browser_host",
    "measure_html",
    "normalize_modality",
]
