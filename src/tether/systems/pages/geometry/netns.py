"""Chromium in its own network namespace: the browser has no route to any network.

Playwright talks to Chromium over pipes (--remote-debugging-pipe), so the browser
needs no network at all. A wrapper script given to Playwright as the executable
starts Chromium under `unshare`, in a new network namespace whose only interface is
a loopback that is down: no connection, datagram or DNS query can leave, whatever a
page or the browser itself tries. As root `unshare --net` is enough; other users get
the namespace inside a user namespace (`--user --map-root-user`). unshare execs
Chromium, so this adds no process, and it runs once per browser, not per page.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tether.systems.pages.geometry.launcher import launcher

#: unshare invocations tried in order; the first that works on this machine is used.
UNSHARE_VARIANTS = (("--net",), ("--user", "--map-root-user", "--net"))


class NoNetworkNamespace(RuntimeError):
    """No way to start a process without network access here."""


def unshare_args() -> list[str]:
    """The unshare command line (without the program) that works on this machine."""
    unshare = shutil.which("unshare")
    if unshare is None:
        raise NoNetworkNamespace("unshare (util-linux) is not installed")
    errors = []
    for variant in UNSHARE_VARIANTS:
        cmd = [unshare, *variant, "--", "true"]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired) as exc:
            errors.append(f"{' '.join(variant)}: {exc}")
            continue
        if done.returncode == 0:
            return [unshare, *variant, "--"]
        errors.append(f"{' '.join(variant)}: {done.stderr.strip() or done.returncode}")
    raise NoNetworkNamespace("cannot create a network namespace (" + "; ".join(errors) + ")")


def isolated_executable(executable: str, directory: Path) -> Path:
    """A script in `directory` that execs `executable` in a new network namespace
    (launcher.py: with its feature switches merged)."""
    return launcher(executable, directory, prefix=unshare_args(), name="chromium-no-network")
