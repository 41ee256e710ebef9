"""DOM-geometry and temporal instruments for rendered HTML (figures, slides, web, animations).

Importing this package registers the `geometry` instrument.
"""

from tether.instruments.geometry.browser import BrowserHost, BrowserUnavailable, get_browser_host
from tether.instruments.geometry.defects import KINDS, format_geometry_feedback
from tether.instruments.geometry.instrument import GeometryInstrument
from tether.instruments.geometry.measure import Measurement, ProbeRun, measure_html
from tether.instruments.geometry.profiles import MODALITIES, PROFILES, normalize_modality

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
