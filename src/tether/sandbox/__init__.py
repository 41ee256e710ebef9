"""Sandboxed execution of model-written code and commands (invariant 4 of docs/concepts.md).

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.sandbox.backends import BACKENDS as BACKENDS, get_sandbox as get_sandbox
    from tether.sandbox.base import (
        KilledReason as KilledReason,
        OmittedFile as OmittedFile,
        Sandbox as Sandbox,
        SandboxError as SandboxError,
        SandboxResult as SandboxResult,
        SandboxUnavailable as SandboxUnavailable,
    )
    from tether.sandbox.bwrap import BwrapSandbox as BwrapSandbox
    from tether.sandbox.quota import (
        DEFAULT_DISK_MB as DEFAULT_DISK_MB,
        DiskQuota as DiskQuota,
        DiskQuotaWarning as DiskQuotaWarning,
    )
    from tether.sandbox.reaper import (
        Reaped as Reaped,
        owned_dir as owned_dir,
        reap_stale as reap_stale,
    )
    from tether.sandbox.seccomp import fake_chown_filter as fake_chown_filter
    from tether.sandbox.session import SandboxSession as SandboxSession
    from tether.sandbox.tree_copy import copy_tree as copy_tree
    from tether.sandbox.unsafe_subprocess import (
        UnsafeSandboxWarning as UnsafeSandboxWarning,
        UnsafeSubprocessSandbox as UnsafeSubprocessSandbox,
    )
    from tether.sandbox.users import (
        SandboxUser as SandboxUser,
        ensure_sandbox_user as ensure_sandbox_user,
    )
    from tether.sandbox.warm import WarmPool as WarmPool, warm_or_cold as warm_or_cold
    from tether.sandbox.worker import (
        SandboxedWorker as SandboxedWorker,
        WorkerLimits as WorkerLimits,
        WorkerReply as WorkerReply,
    )
    from tether.sandbox.workfiles import UnsafeFile as UnsafeFile, read_own_file as read_own_file

_HOMES: dict[str, str] = {
    "BACKENDS": "tether.sandbox.backends",
    "BwrapSandbox": "tether.sandbox.bwrap",
    "DEFAULT_DISK_MB": "tether.sandbox.quota",
    "DiskQuota": "tether.sandbox.quota",
    "DiskQuotaWarning": "tether.sandbox.quota",
    "KilledReason": "tether.sandbox.base",
    "OmittedFile": "tether.sandbox.base",
    "Reaped": "tether.sandbox.reaper",
    "Sandbox": "tether.sandbox.base",
    "SandboxError": "tether.sandbox.base",
    "SandboxResult": "tether.sandbox.base",
    "SandboxSession": "tether.sandbox.session",
    "SandboxUnavailable": "tether.sandbox.base",
    "SandboxUser": "tether.sandbox.users",
    "SandboxedWorker": "tether.sandbox.worker",
    "UnsafeFile": "tether.sandbox.workfiles",
    "UnsafeSandboxWarning": "tether.sandbox.unsafe_subprocess",
    "UnsafeSubprocessSandbox": "tether.sandbox.unsafe_subprocess",
    "WarmPool": "tether.sandbox.warm",
    "WorkerLimits": "tether.sandbox.worker",
    "WorkerReply": "tether.sandbox.worker",
    "copy_tree": "tether.sandbox.tree_copy",
    "ensure_sandbox_user": "tether.sandbox.users",
    "fake_chown_filter": "tether.sandbox.seccomp",
    "get_sandbox": "tether.sandbox.backends",
    "owned_dir": "tether.sandbox.reaper",
    "reap_stale": "tether.sandbox.reaper",
    "read_own_file": "tether.sandbox.workfiles",
    "warm_or_cold": "tether.sandbox.warm",
}
__all__ = [
    "BACKENDS",
    "BwrapSandbox",
    "DEFAULT_DISK_MB",
    "DiskQuota",
    "DiskQuotaWarning",
    "KilledReason",
    "OmittedFile",
    "Reaped",
    "Sandbox",
    "SandboxError",
    "SandboxResult",
    "SandboxSession",
    "SandboxUnavailable",
    "SandboxUser",
    "SandboxedWorker",
    "UnsafeFile",
    "UnsafeSandboxWarning",
    "UnsafeSubprocessSandbox",
    "WarmPool",
    "WorkerLimits",
    "WorkerReply",
    "copy_tree",
    "ensure_sandbox_user",
    "fake_chown_filter",
    "get_sandbox",
    "owned_dir",
    "reap_stale",
    "read_own_file",
    "warm_or_cold",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
