"""The pages system: DOM geometry and temporal instruments, overlays, the screenshot judge,
visual suites and `tether measure`.

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.systems.pages.examples import measure_example_pages as measure_example_pages
    from tether.systems.pages.geometry.instrument import GeometryInstrument as GeometryInstrument
    from tether.systems.pages.measure_page import measure as measure

_HOMES: dict[str, str] = {
    "GeometryInstrument": "tether.systems.pages.geometry.instrument",
    "measure": "tether.systems.pages.measure_page",
    "measure_example_pages": "tether.systems.pages.examples",
}
__all__ = [
    "GeometryInstrument",
    "measure",
    "measure_example_pages",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
