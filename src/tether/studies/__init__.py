"""Code that exists only to reproduce one paper, one package per study.

General instruments, strategies and suites live in their own packages; a study's
package holds what only that paper needs (its recorded data formats, its recorded
results and the helpers that recompute its tables from them).

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
