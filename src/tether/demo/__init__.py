"""`tether demo`: a tour of every system on the embedded default model.

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from tether.lazy import exports

_HOMES: dict[str, str] = {
}
__all__ = [
]
__getattr__, __dir__ = exports(__name__, _HOMES)
