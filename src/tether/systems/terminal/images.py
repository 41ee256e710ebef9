"""Environment images without Docker: a root filesystem from Debian packages.

An image is built once per recipe and cached by the recipe's content hash, so tasks
with the same Dockerfile, build context and verifier pins share one image:

  1. `mmdebstrap --variant=minbase SUITE` with BASE_PACKAGES (python3, venv, pip, ...),
     the shared .deb cache synced in and out (mmdebstrap's sync-in/sync-out hooks)
  2. the Dockerfile's steps in order, each in the build sandbox
     (`tether.systems.terminal.build_sandbox`: the unprivileged build user, a user namespace
     with no capabilities, its own network namespace whose only way out is the mirror
     proxy of `tether.systems.terminal.build_proxy`): COPY/ADD copy from the build context
     bound read-only (every source checked to stay inside it, `tether.systems.terminal.context`),
     ENV and WORKDIR are tracked, RUN runs the step's shell command; the shared .deb
     cache is seen read-only (linked into apt's archive dir), pip has no shared cache
  3. the verifier's venv (VERIFIER_VENV) with its pinned packages (pytest==8.4.1, ...)
  4. the image's writable dir (/app, or the Dockerfile's own WORKDIR outside /app) is
     moved out to IMAGE/app (each attempt gets a fresh copy of it as its writable dir);
     the rest, IMAGE/rootfs, owned by root again, is mounted read-only by the sandbox

Every step writes into a disk quota of the build's own (`build_disk_mb`, 6 GiB unless the
task's task.toml says otherwise), and the finished image is copied out of it; a build that
could take the image store past its ceiling is refused before it starts
(tether.systems.terminal.image_disk).

An image dir is complete only once IMAGE/image.json exists (written last, after an
atomic rename of the build dir), so a crashed build is rebuilt, never half-used.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tether.errors import ConfigError
from tether.systems.terminal.build_proxy import BUILD_MIRRORS, FORWARDER, PROXY_URL, MirrorProxy
from tether.systems.terminal.build_sandbox import (
    STEP_SH,
    BuildSandbox,
    ImageBuildError,
    give_back_ownership,
    take_ownership,
)
from tether.systems.terminal.build_steps import BUILD_PATH, BuildSteps, error_lines
from tether.systems.terminal.context import ContextEscape, copy_sources, source_files
from tether.systems.terminal.convert import BASE_PACKAGES, VERIFIER_VENV, Classification
from tether.systems.terminal.dockerfile import Step
from tether.systems.terminal.image_disk import DEFAULT_BUILD_DISK_MB, BuildQuota, check_store
from tether.systems.terminal.rootfs import ensure_dir, move_out
from tether.systems.terminal.spec import writable_dir

BUILDER_VERSION = 2  # part of every image key: bump when the build procedure changes
DEFAULT_IMAGE_DIR = Path(os.environ.get("TETHER_IMAGE_DIR", "/var/tmp/tether-images"))
# apt through the proxy, one request per connection (each one checked), no drop to the
# _apt user (impossible without capabilities; the whole build is unprivileged anyway).
APT_BUILD_CONF = f"""\
Acquire::http::Proxy "{PROXY_URL}/";
Acquire::https::Proxy "{PROXY_URL}/";
Acquire::http::Pipeline-Depth "0";
APT::Sandbox::User "root";
"""
MIN_FREE_GB = 8.0  # refuse to start a build below this much free disk


def host_ca_bundle() -> Path | None:
    """The host's CA bundle (a TLS-inspecting egress proxy's CA lives there): steps see a
    copy under RUN_DIR, so it never becomes part of an image."""
    for candidate in (os.environ.get("SSL_CERT_FILE"), "/etc/ssl/certs/ca-certificates.crt"):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


@dataclass(frozen=True)
class ImageSpec:
    """Everything that decides an image's content, as JSON; its hash is the image key."""

    suite: str
    packages: tuple[str, ...]
    steps: tuple[Step, ...]
    context_hash: str  # of the build context's files that COPY/ADD read
    verifier_pins: tuple[str, ...]
    note: str | None = None
    # the verifier installed its pins with `pip install` into the image's own Python:
    # its venv sees the image's packages too (uvx's does not)
    verifier_system_site: bool = False

    def to_json(self) -> dict[str, object]:
        return {"builder": BUILDER_VERSION, "suite": self.suite, "packages": list(self.packages),
                "steps": [[s.kind, *s.args] for s in self.steps],
                "context": self.context_hash, "verifier_pins": list(self.verifier_pins),
                "verifier_system_site": self.verifier_system_site}

    @property
    def key(self) -> str:
        blob = json.dumps(self.to_json(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def context_hash(env_dir: Path, steps: tuple[Step, ...]) -> str:
    """sha256 over the names, modes and contents of every file a COPY/ADD reads (a link
    inside a copied dir by its target's name: it is copied as a link)."""
    digest = hashlib.sha256()
    patterns = sorted({src for s in steps if s.kind == "copy" for src in s.args[:-1]})
    for pattern in patterns:
        try:
            sources = copy_sources(env_dir, pattern)
        except ContextEscape as exc:
            raise ConfigError(str(exc)) from None
        for name, path in source_files(sources):
            digest.update(name.encode() + b"\0")
            if path.is_symlink():
                digest.update(b"link\0" + os.readlink(path).encode())
                continue
            digest.update(str(path.stat().st_mode & 0o777).encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def image_spec(c: Classification) -> ImageSpec:
    """The image spec of a convertible classification."""
    if not c.convertible or c.recipe is None or c.suite is None or c.verifier is None:
        raise ConfigError(f"{c.task}: not convertible: {c.reason()}")
    steps = tuple(c.recipe.steps)
    return ImageSpec(suite=c.suite, packages=BASE_PACKAGES, steps=steps,
                     context_hash=context_hash(c.task_dir / "environment", steps),
                     verifier_pins=c.verifier.pins, note="; ".join(c.notes) or None,
                     verifier_system_site=c.verifier.system_site)


@dataclass(frozen=True)
class Image:
    """A built image: rootfs (mounted read-only), app (the initial /app), its metadata."""

    key: str
    path: Path
    env: dict[str, str]
    workdir: str

    @property
    def rootfs(self) -> Path:
        return self.path / "rootfs"

    @property
    def app(self) -> Path:
        return self.path / "app"

    @classmethod
    def load(cls, path: Path) -> Image | None:
        meta = path / "image.json"
        if not meta.is_file():
            return None
        data = json.loads(meta.read_text(encoding="utf-8"))
        return cls(key=data["key"], path=path, env=dict(data["env"]), workdir=data["workdir"])


def free_gb(path: Path) -> float:
    stat = os.statvfs(path)
    return stat.f_bavail * stat.f_frsize / 2**30


class ImageBuilder:
    """Builds and caches images under `root` (images/KEY, cache/apt, cache/pip, logs/)."""

    def __init__(self, root: Path = DEFAULT_IMAGE_DIR, *, mmdebstrap: str | None = None,
                 bwrap: str | None = None, log: Callable[[str], None] | None = None,
                 mirrors: tuple[str, ...] = BUILD_MIRRORS) -> None:
        self.root = Path(root)
        self.mirrors = mirrors
        self.mmdebstrap = mmdebstrap or shutil.which("mmdebstrap")
        self.bwrap = bwrap or shutil.which("bwrap")
        self.log = log or (lambda _msg: None)

    def image_dir(self, key: str) -> Path:
        return self.root / "images" / key

    def cached(self, spec: ImageSpec) -> Image | None:
        return Image.load(self.image_dir(spec.key))

    def build(self, spec: ImageSpec, context: Path, *, timeout_s: float = 1800,
              disk_mb: int = DEFAULT_BUILD_DISK_MB) -> Image:
        """The image for spec, built now unless cached, on a disk quota of `disk_mb`
        (tether.systems.terminal.image_disk); ImageBuildError says why not."""
        hit = self.cached(spec)
        if hit is not None:
            return hit
        self._check_tools()
        (self.root / "locks").mkdir(parents=True, exist_ok=True)
        # one builder per key at a time (two imports of tasks sharing a recipe)
        with (self.root / "locks" / f"{spec.key}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            hit = self.cached(spec)
            return hit if hit is not None else self._build(spec, context, timeout_s, disk_mb)

    def _check_tools(self) -> None:
        if self.mmdebstrap is None:
            raise ImageBuildError("mmdebstrap not found: `apt-get install mmdebstrap`")
        if self.bwrap is None:
            raise ImageBuildError("bwrap not found: `apt-get install bubblewrap`")
        if os.geteuid() != 0:
            raise ImageBuildError("image builds need root for the bootstrap (mmdebstrap) "
                                  "and to drop to the build user; the steps run unprivileged")

    def _build(self, spec: ImageSpec, context: Path, timeout_s: float, disk_mb: int) -> Image:
        for sub in ("images", "cache/apt", "logs"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        (self.root / "images").chmod(0o755)
        if free_gb(self.root) < MIN_FREE_GB:
            raise ImageBuildError(f"{free_gb(self.root):.1f} GB free under {self.root}: "
                                  f"below {MIN_FREE_GB:g} GB, not starting a build")
        check_store(self.root / "images", disk_mb)
        partial = self.root / "images" / f"{spec.key}.partial"
        done = self.root / "images" / f"{spec.key}.done"
        for leftover in (partial, done):
            shutil.rmtree(leftover, ignore_errors=True)
        partial.mkdir()
        log_path = self.root / "logs" / f"{spec.key}.log"
        deadline = time.monotonic() + timeout_s
        quota: BuildQuota | None = None
        try:
            quota = BuildQuota(partial, disk_mb)  # the build writes nowhere else
            try:
                with log_path.open("w", encoding="utf-8") as log:
                    env, workdir = self._build_into(partial, spec, context, log, deadline)
            except ImageBuildError as exc:
                raise quota.failed(exc) from None
            meta = {"key": spec.key, "env": env, "workdir": workdir, "spec": spec.to_json(),
                    "note": spec.note, "built_at": time.time(), "build_disk_mb": disk_mb}
            (partial / "build.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
            meta["bytes"] = quota.copy_out(done)
            quota.close()
            partial.rmdir()
            final = self.image_dir(spec.key)
            shutil.rmtree(final, ignore_errors=True)
            done.rename(final)
            (final / "image.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        except BaseException:
            if quota is not None:
                quota.close()
            for leftover in (partial, done):
                shutil.rmtree(leftover, ignore_errors=True)
            raise
        image = Image.load(final)
        assert image is not None
        return image

    # -- the steps ------------------------------------------------------------------
    def _build_into(self, out: Path, spec: ImageSpec, context: Path, log: TextIO,
                    deadline: float) -> tuple[dict[str, str], str]:
        rootfs = out / "rootfs"
        base = self._base_tarball(spec, log, deadline)
        rootfs.mkdir()
        self._call(["tar", "-C", str(rootfs), "--numeric-owner", "-xpf", str(base)], log,
                   deadline, what="unpacking the base")
        box = BuildSandbox(self.bwrap or "bwrap")
        owners = take_ownership(rootfs, box.user)  # the base as tar made it: nothing planted
        run_dir = self._run_dir(out, context)
        env: dict[str, str] = {}
        workdir = "/"
        with MirrorProxy(run_dir / "proxy.sock", self.mirrors) as proxy:
            steps = BuildSteps(self, box, rootfs, run_dir, proxy, log, deadline)
            for step in spec.steps:
                if step.kind == "env":
                    env[step.args[0]] = step.args[1]
                elif step.kind == "workdir":
                    workdir = step.args[0]
                    steps.run("true", env, workdir, what=f"WORKDIR {workdir}")
                elif step.kind == "copy":
                    steps.copy(context, step.args[:-1], step.args[-1], env, workdir)
                elif step.kind == "run":
                    self.log(f"RUN {step.args[0][:70]}")
                    steps.run(step.args[0], env, workdir, what=f"RUN {step.args[0][:60]}")
            if spec.verifier_pins:
                self.log(f"verifier venv: {' '.join(spec.verifier_pins)}")
                pins = " ".join(shlex.quote(p) for p in spec.verifier_pins)
                site = " --system-site-packages" if spec.verifier_system_site else ""
                steps.run(f"python3 -m venv{site} {VERIFIER_VENV} && "
                          f"{VERIFIER_VENV}/bin/pip install -q {pins}", {}, "/",
                          what="the verifier venv")
            # what a build leaves that no image should carry: cache links, pip's cache
            steps.run("rm -f /var/cache/apt/archives/*.deb; rm -rf /root/.cache/pip", {}, "/",
                      what="cleaning up")
        give_back_ownership(rootfs, owners)
        shutil.rmtree(run_dir, ignore_errors=True)
        writable = writable_dir(workdir)
        move_out(rootfs, writable, out / "app")
        # The sandbox bind-mounts these into the read-only image: the dirs must exist.
        for mount in (writable, "/app", "/tests", "/solution", "/environment",
                      "/logs/verifier", "/tmp"):
            ensure_dir(rootfs, mount)
        return env, workdir

    def _run_dir(self, out: Path, context: Path) -> Path:
        """What every step sees read-only at RUN_DIR: its wrapper, the forwarder, apt's
        proxy settings, the host's CA bundle, and mount points for the context and the
        shared .deb cache (written only by tether's own bootstrap)."""
        run_dir = out / "run"
        run_dir.mkdir()
        (run_dir / "step.sh").write_text(STEP_SH, encoding="utf-8")
        (run_dir / "forward.py").write_text(FORWARDER, encoding="utf-8")
        (run_dir / "apt.conf").write_text(APT_BUILD_CONF, encoding="utf-8")
        ca = host_ca_bundle()
        if ca is not None:
            shutil.copyfile(ca, run_dir / "ca.crt")
        for sub in ("apt-cache", "context"):
            (run_dir / sub).mkdir()
        for path in (run_dir, *run_dir.iterdir()):
            path.chmod(0o755 if path.is_dir() else 0o644)
        return run_dir

    def _base_tarball(self, spec: ImageSpec, log: TextIO, deadline: float) -> Path:
        """The suite + base packages as a tarball, made once by mmdebstrap and shared by
        every image of that suite (the layer that most builds have in common)."""
        blob = json.dumps([BUILDER_VERSION, spec.suite, list(spec.packages)]).encode()
        name = f"{spec.suite}-{hashlib.sha256(blob).hexdigest()[:12]}.tar"
        path = self.root / "cache" / "base" / name
        if path.is_file():
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.with_suffix(".lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not path.is_file():
                self._mmdebstrap(spec, path, log, deadline)
        return path

    def _mmdebstrap(self, spec: ImageSpec, path: Path, log: TextIO, deadline: float) -> None:
        """The bootstrap: privileged (mmdebstrap's root mode), but it runs only Debian's
        own packages from a fixed list, never a task's code; it alone fills the shared
        .deb cache."""
        apt_cache = self.root / "cache" / "apt"
        self.log(f"mmdebstrap {spec.suite} ({len(spec.packages)} base packages)")
        partial = path.with_suffix(".partial.tar")
        self._call([
            self.mmdebstrap or "mmdebstrap", "--variant=minbase",
            f"--include={','.join(spec.packages)}",
            "--setup-hook=mkdir -p \"$1\"/var/cache/apt/archives/",
            f"--setup-hook=sync-in {apt_cache} /var/cache/apt/archives/",
            f"--customize-hook=sync-out /var/cache/apt/archives {apt_cache}",
            spec.suite, str(partial),
        ], log, deadline, what="mmdebstrap")
        partial.rename(path)

    def _call(self, argv: list[str], log: TextIO, deadline: float, *, what: str) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ImageBuildError(f"image build timed out before {what}")
        print(f"$ {' '.join(argv)}", file=log, flush=True)
        try:
            proc = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT,
                                  timeout=left, env={"PATH": BUILD_PATH, "LANG": "C.UTF-8"})
        except subprocess.TimeoutExpired:
            raise ImageBuildError(f"image build timed out in {what}") from None
        if proc.returncode != 0:
            why = error_lines(Path(log.name)) if hasattr(log, "name") else ""
            raise ImageBuildError(f"{what} failed (exit {proc.returncode}){why}; "
                                  f"build log: {getattr(log, 'name', '?')}")
