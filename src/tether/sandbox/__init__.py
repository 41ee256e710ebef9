"""Sandboxed execution of model-written code and commands (DESIGN.md invariant 4)."""

from __future__ import annotations

from .base import (
    KilledReason,
    OmittedFile,
    Sandbox,
    SandboxError,
    SandboxResult,
    SandboxUnavailable,
)
from .bwrap import BwrapSandbox
from .quota import DEFAULT_DISK_MB, DiskQuota, DiskQuotaWarning
from .session import SandboxSession
from .unsafe_subprocess import UnsafeSandboxWarning, UnsafeSubprocessSandbox
from .worker import SandboxedWorker, WorkerLimits, WorkerReply

BACKENDS = ("bwrap", "subprocess")


def get_sandbox(name: str = "bwrap") -> Sandbox:
    """Build a backend by name; raises SandboxUnavailable (with a hint) if it cannot run."""
    if name == "bwrap":
        return BwrapSandbox()
    if name in ("subprocess", "unsafe", "unsafe_subprocess"):
        return UnsafeSubprocessSandbox()
    raise ValueError(f"unknown sandbox backend {name!r}; choose one of {BACKENDS}")


__all__ = [
    "BACKENDS",
    "DEFAULT_DISK_MB",
    "BwrapSandbox",
    "DiskQuota",
    "DiskQuotaWarning",
    "KilledReason",
    "OmittedFile",
    "Sandbox",
    "SandboxError",
    "SandboxResult",
    "SandboxSession",
    "SandboxUnavailable",
    "SandboxedWorker",
    "UnsafeSandboxWarning",
    "UnsafeSubprocessSandbox",
    "WorkerLimits",
    "WorkerReply",
    "get_sandbox",
]
