"""A bare-subprocess backend: for tests and hosts without user namespaces. NO ISOLATION.

It keeps the sandbox's contract where a plain process can (clean environment, own
process group killed on timeout, rlimits, capped output) but the command can read,
write and connect anywhere its user can. mount_at and binds are not applied: the
command runs in the host work dir, which TETHER_WORKDIR names.
"""

from __future__ import annotations

import logging
import resource
import warnings

from ._proc import run_monitored
from .base import ExecSpec, Sandbox, SandboxResult, classify

logger = logging.getLogger(__name__)
_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class UnsafeSandboxWarning(UserWarning):
    """Emitted when a sandbox without isolation is constructed."""


class UnsafeSubprocessSandbox(Sandbox):
    name = "subprocess"

    def __init__(self) -> None:
        msg = (
            "UnsafeSubprocessSandbox provides NO isolation (no namespaces, network and "
            "filesystem open); use it only for tests or trusted commands"
        )
        warnings.warn(msg, UnsafeSandboxWarning, stacklevel=2)
        logger.warning(msg)

    def _execute(self, spec: ExecSpec) -> SandboxResult:
        mem = spec.memory_mb * 1024 * 1024
        fsize = spec.max_file_mb * 1024 * 1024

        def preexec() -> None:
            # No RLIMIT_NPROC: it counts every process of our (possibly root) user.
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        env = {
            "PATH": _PATH,
            "HOME": str(spec.host_workdir),
            "LANG": "C.UTF-8",
            "TETHER_WORKDIR": str(spec.host_workdir),
            **spec.env,
        }
        out = run_monitored(
            spec.argv,
            cwd=str(spec.host_workdir),
            env=env,
            stdin=spec.stdin,
            timeout_s=spec.timeout_s,
            output_cap_chars=spec.output_cap_chars,
            hard_output_bytes=spec.hard_output_bytes,
            preexec_fn=preexec,
        )
        reason = classify(
            timed_out=out.timed_out,
            output_limited=out.output_limited,
            returncode=out.returncode,
            stderr=out.stderr,
            disk_full=spec.disk_full(),
        )
        return out.result(reason, disk_quota_mb=spec.disk_quota_mb())
