"""Bridges to the tools this field lives in, each behind an optional extra.

- `inspect_log`: a tether run written as Inspect AI eval logs (`tether export --format
  inspect`), opened by `inspect view` and `inspect log dump`;
- `inspect_scorers`: tether's grounded instruments as Inspect scorers
  (`scorer=tether_execution()`, `scorer=tether_geometry()`).

Nothing here is imported by the rest of tether: `inspect_ai` (the `inspect` extra) is
imported only by these modules, when they are used.

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
