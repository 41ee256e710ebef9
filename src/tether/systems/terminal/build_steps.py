"""The steps of one image build (RUN and COPY), each in the build sandbox, and what a
failed step's log says about why (`error_lines`, `offline_hint`).

Split from `tether.systems.terminal.images`, which bootstraps the base, orders the steps
and stores the image.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from tether.systems.terminal.build_proxy import PROXY_URL, MirrorProxy
from tether.systems.terminal.build_sandbox import RUN_DIR, BuildSandbox, ImageBuildError
from tether.systems.terminal.context import ContextEscape, copy_sources

if TYPE_CHECKING:
    from tether.systems.terminal.images import ImageBuilder

__all__ = ["BUILD_ENV", "BUILD_PATH", "BuildSteps", "error_lines", "offline_hint", "readable"]

BUILD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# pip into the image's system Python (Debian marks it externally managed); every
# download through the mirror proxy.
BUILD_ENV = {"PIP_BREAK_SYSTEM_PACKAGES": "1", "DEBIAN_FRONTEND": "noninteractive",
             "PIP_ROOT_USER_ACTION": "ignore", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
             "PIP_NO_CACHE_DIR": "1", "APT_CONFIG": f"{RUN_DIR}/apt.conf",
             "http_proxy": PROXY_URL, "https_proxy": PROXY_URL, "HTTP_PROXY": PROXY_URL,
             "HTTPS_PROXY": PROXY_URL, "no_proxy": "localhost,127.0.0.1",
             "NO_PROXY": "localhost,127.0.0.1"}  # fmt: skip


class BuildSteps:
    """The steps of one build, each in the build sandbox; a step that asked the proxy
    for a host outside the mirrors fails the build, whatever its exit status."""

    def __init__(self, builder: ImageBuilder, box: BuildSandbox, rootfs: Path, run_dir: Path,
                 proxy: MirrorProxy, log: TextIO, deadline: float) -> None:
        self.builder, self.box, self.rootfs, self.run_dir = builder, box, rootfs, run_dir
        self.proxy, self.log, self.deadline = proxy, log, deadline

    def run(self, command: str, env: dict[str, str], workdir: str, *, what: str,
            binds: dict[str, str] | None = None) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise ImageBuildError(f"image build timed out before {what}")
        full_env = {"PATH": BUILD_PATH, "HOME": "/root", "LANG": "C.UTF-8", **BUILD_ENV, **env}
        if (self.run_dir / "ca.crt").is_file():
            ca = f"{RUN_DIR}/ca.crt"
            full_env = {"PIP_CERT": ca, "SSL_CERT_FILE": ca, "REQUESTS_CA_BUNDLE": ca,
                        "CURL_CA_BUNDLE": ca, **full_env}
        cache = self.builder.root / "cache" / "apt"
        all_binds = {str(cache): f"{RUN_DIR}/apt-cache", **(binds or {})}
        try:
            rc = self.box.run(self.rootfs, self.run_dir, workdir, command, env=full_env,
                              binds=all_binds, log=self.log, timeout_s=left)
        except subprocess.TimeoutExpired:
            raise ImageBuildError(f"image build timed out in {what}") from None
        refused = self.proxy.take_refused()
        if refused:
            hosts = ", ".join(sorted({str(r) for r in refused}))
            raise ImageBuildError(
                f"{what} tried to reach {hosts}, outside the package mirrors a build may use "
                f"({', '.join(self.builder.mirrors)}); build log: {self.log.name}")
        if rc != 0:
            why = error_lines(Path(self.log.name))
            offline = offline_hint(Path(self.log.name))
            raise ImageBuildError(f"{what} failed (exit {rc}){why}{offline}; "
                                  f"build log: {self.log.name}")

    def copy(self, context: Path, patterns: tuple[str, ...], dest: str, env: dict[str, str],
             workdir: str) -> None:
        """COPY inside the sandbox: the checked sources staged into RUN_DIR/context (the
        build user may not reach the task dir), `cp` run as the build user, so a link the
        build planted in the image can only point into the image."""
        root = context.resolve()
        try:
            sources = [s for p in patterns for s in copy_sources(context, p)]
        except ContextEscape as exc:
            raise ImageBuildError(str(exc)) from None
        staged = self.run_dir / "context"
        shutil.rmtree(staged)
        staged.mkdir()
        for src in sources:
            at = staged / src.real.relative_to(root)
            at.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir:  # links inside were checked to stay in the context: kept as links
                shutil.copytree(src.real, at, symlinks=True, dirs_exist_ok=True)
            else:
                shutil.copy2(src.real, at)
        readable(staged)
        into_dir = dest.endswith("/") or len(sources) > 1
        lines = []
        q = shlex.quote
        for src in sources:
            inside = f"{RUN_DIR}/context/{src.real.relative_to(root).as_posix()}"
            if src.is_dir:  # COPY dir dest: the dir's *contents* go to dest
                lines.append(f"mkdir -p {q(dest)} && cp -RP --preserve=mode,timestamps "
                             f"{q(inside + '/.')} {q(dest)}")
                continue
            name = q(dest.rstrip("/") + "/" + Path(src.name).name)
            if into_dir:
                lines.append(f"mkdir -p {q(dest)} && cp -P --preserve=mode,timestamps "
                             f"{q(inside)} {name}")
            else:
                lines.append(f"if [ -d {q(dest)} ]; then cp -P --preserve=mode,timestamps "
                             f"{q(inside)} {name}; else mkdir -p \"$(dirname {q(dest)})\" && "
                             f"cp -P --preserve=mode,timestamps {q(inside)} {q(dest)}; fi")
        if lines:
            self.run(" && ".join(f"{{ {ln}; }}" for ln in lines), env, workdir,
                     what=f"COPY {' '.join(patterns)} {dest}")


def error_lines(log_path: Path, keep: int = 2) -> str:
    """The last apt/pip error lines of a build log (`E: ...`, `ERROR: ...`), so a
    failed build says why in its one line (e.g. a package that suite does not have)."""
    try:
        lines = log_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    errors = [ln.strip() for ln in lines if ln.startswith(("E: ", "ERROR: "))]
    return (": " + " | ".join(errors[-keep:])) if errors else ""


def readable(top: Path) -> None:
    """Read (and search) bits for everyone on a staged tree, links untouched."""
    for dirpath, dirnames, filenames in os.walk(top):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            path = Path(dirpath) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o444)
        dirnames[:] = [d for d in dirnames if not (Path(dirpath) / d).is_symlink()]


def offline_hint(log_path: Path) -> str:
    """Why a download that went around the proxy failed: there is no other way out."""
    try:
        text = log_path.read_text(encoding="utf-8", errors="replace")[-20000:]
    except OSError:
        return ""
    signs = ("Temporary failure in name resolution", "Could not resolve host",
             "Network is unreachable", "Name or service not known")
    if any(sign in text for sign in signs):
        return (" (a build reaches the network only through its proxy, "
                f"{PROXY_URL}, and only the package mirrors)")
    return ""
