"""The sandbox backends by name: bwrap (the real one) and the unsafe subprocess backend
(tests only; it says so when used)."""

from __future__ import annotations

from tether.sandbox.base import Sandbox
from tether.sandbox.bwrap import BwrapSandbox
from tether.sandbox.unsafe_subprocess import UnsafeSubprocessSandbox

BACKENDS = ("bwrap", "subprocess")


def get_sandbox(name: str = "bwrap") -> Sandbox:
    """Build a backend by name; raises SandboxUnavailable (with a hint) if it cannot run."""
    if name == "bwrap":
        return BwrapSandbox()
    if name in ("subprocess", "unsafe", "unsafe_subprocess"):
        return UnsafeSubprocessSandbox()
    raise ValueError(f"unknown sandbox backend {name!r}; choose one of {BACKENDS}")
