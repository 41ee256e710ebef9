"""The start of a long command, out of the cycle collector's way.

What a command loads as it starts lives until it exits: the model SDK's classes (the
openai SDK's are some seven hundred pydantic models), pydantic's schemas, the tasks. While
they load, the collector would walk them again and again; measured, about a tenth of
`tether run`'s start. Inside `start_up()` it is off; leaving normally, what was loaded is
frozen (moved where the collector never looks) before it is back on, so the collections
of the rest of the command, and the interpreter's exit, do not walk it either.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def start_up() -> Iterator[None]:
    """The collector off for the block; on normal exit what is alive is frozen. The
    collector's own setting is restored however the block ends."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
        gc.freeze()
    finally:
        if was_on:
            gc.enable()
