"""The start of a long command (`tether run`, `tether compile`): less to load, and what
is loaded out of the cycle collector's way.

What a command loads as it starts lives until it exits: the model SDK's classes (the
openai SDK's are some seven hundred pydantic models), pydantic's schemas, the tasks. While
they load, the collector would walk them again and again; measured, about a tenth of
`tether run`'s start. Inside `start_up()` it is off; leaving normally, what was loaded is
frozen (moved where the collector never looks) before it is back on, so the collections
of the rest of the command, and the interpreter's exit, do not walk it either.

The model SDKs also import an aiohttp transport of their own whenever aiohttp is installed
(it is, beside Ray, Inspect or an fsspec filesystem), for an async client tether's
backends never make: aiohttp, and the two TLS contexts it makes as it loads, were 0.12 s
of a 1.3 s start (measured on a 2-core machine). Inside `start_up()` those transport
modules (UNUSED_TRANSPORTS) cannot be imported, which the SDKs take as aiohttp being
absent; aiohttp itself stays importable by anything else, and after the block the entries
are gone again. Only the command's own process is concerned: `tether.run` in a user's
program imports the SDKs as they are.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

#: the SDKs' vendored aiohttp transports, used only by their async `DefaultAioHttpClient`
UNUSED_TRANSPORTS = ("openai._vendor.httpx_aiohttp", "anthropic._vendor.httpx_aiohttp")


@contextmanager
def start_up() -> Iterator[None]:
    """The collector off and the unused transports unimportable for the block; on normal
    exit what is alive is frozen. The collector's own setting and the import system are
    restored however the block ends."""
    was_on = gc.isenabled()
    gc.disable()
    # None in sys.modules: an import of the name raises ImportError (Python's own rule)
    blocked = [name for name in UNUSED_TRANSPORTS if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        yield
        gc.freeze()
    finally:
        for name in blocked:
            if sys.modules.get(name, ...) is None:
                del sys.modules[name]
        if was_on:
            gc.enable()
