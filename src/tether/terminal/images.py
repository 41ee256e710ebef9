"""Environment images without Docker: a root filesystem from Debian packages.

An image is built once per recipe and cached by the recipe's content hash, so tasks
with the same Dockerfile, build context and verifier pins share one image:

  1. `mmdebstrap --variant=minbase SUITE` with BASE_PACKAGES (python3, venv, pip, ...),
     the package download cache synced in and out (mmdebstrap's sync-in/sync-out hooks)
  2. the Dockerfile's steps in order: COPY/ADD copies from the build context (relative
     destinations against WORKDIR), ENV and WORKDIR are tracked, RUN runs as root in a
     bubblewrap namespace over the image *with network* (build time only), with apt's
     archive dir and pip's cache bound to the shared download cache
  3. the verifier's venv (VERIFIER_VENV) with its pinned packages (pytest==8.4.1, ...)
  4. the image's /app is moved out to IMAGE/app (each attempt gets a fresh copy of it
     as its writable /app); the rest, IMAGE/rootfs, is mounted read-only by the sandbox

An image dir is complete only once IMAGE/image.json exists (written last, after an
atomic rename of the build dir), so a crashed build is rebuilt, never half-used.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tether.errors import ConfigError, TetherError
from tether.terminal.convert import BASE_PACKAGES, VERIFIER_VENV, Classification
from tether.terminal.dockerfile import Step

BUILDER_VERSION = 1  # part of every image key: bump when the build procedure changes
DEFAULT_IMAGE_DIR = Path(os.environ.get("TETHER_IMAGE_DIR", "/var/tmp/tether-images"))
BUILD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# pip into the image's system Python (Debian marks it externally managed).
BUILD_ENV = {"PIP_BREAK_SYSTEM_PACKAGES": "1", "DEBIAN_FRONTEND": "noninteractive",
             "PIP_ROOT_USER_ACTION": "ignore", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
MIN_FREE_GB = 8.0  # refuse to start a build below this much free disk
# Build steps trust the host's CA bundle (a TLS-inspecting egress proxy's CA lives there):
# bound read-only for RUN steps only, so it never becomes part of an image.
BUILD_CA = "/run/tether-build-ca.crt"
APT_CACHE_MOUNT = "/var/cache/tether-apt"  # the shared .deb cache, during RUN steps only


def host_ca_bundle() -> Path | None:
    for candidate in (os.environ.get("SSL_CERT_FILE"), "/etc/ssl/certs/ca-certificates.crt"):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


class ImageBuildError(TetherError):
    """An image could not be built (an infrastructure error, never a task's score)."""


@dataclass(frozen=True)
class ImageSpec:
    """Everything that decides an image's content, as JSON; its hash is the image key."""

    suite: str
    packages: tuple[str, ...]
    steps: tuple[Step, ...]
    context_hash: str  # of the build context's files that COPY/ADD read
    verifier_pins: tuple[str, ...]
    note: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"builder": BUILDER_VERSION, "suite": self.suite, "packages": list(self.packages),
                "steps": [[s.kind, *s.args] for s in self.steps],
                "context": self.context_hash, "verifier_pins": list(self.verifier_pins)}

    @property
    def key(self) -> str:
        blob = json.dumps(self.to_json(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def context_hash(env_dir: Path, steps: tuple[Step, ...]) -> str:
    """sha256 over the paths, modes and contents of every file a COPY/ADD reads."""
    digest = hashlib.sha256()
    sources = sorted({src for s in steps if s.kind == "copy" for src in s.args[:-1]})
    for src in sources:
        for path in sorted(env_dir.glob(src)):
            files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
            for f in files:
                digest.update(f.relative_to(env_dir).as_posix().encode() + b"\0")
                digest.update(str(f.stat().st_mode & 0o777).encode() + b"\0")
                digest.update(hashlib.sha256(f.read_bytes()).digest())
    return digest.hexdigest()


def image_spec(c: Classification) -> ImageSpec:
    """The image spec of a convertible classification."""
    if not c.convertible or c.recipe is None or c.suite is None or c.verifier is None:
        raise ConfigError(f"{c.task}: not convertible: {c.reason()}")
    steps = tuple(c.recipe.steps)
    return ImageSpec(suite=c.suite, packages=BASE_PACKAGES, steps=steps,
                     context_hash=context_hash(c.task_dir / "environment", steps),
                     verifier_pins=c.verifier.pins, note="; ".join(c.notes) or None)


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
                 bwrap: str | None = None, log: Callable[[str], None] | None = None) -> None:
        self.root = Path(root)
        self.mmdebstrap = mmdebstrap or shutil.which("mmdebstrap")
        self.bwrap = bwrap or shutil.which("bwrap")
        self.log = log or (lambda _msg: None)

    def image_dir(self, key: str) -> Path:
        return self.root / "images" / key

    def cached(self, spec: ImageSpec) -> Image | None:
        return Image.load(self.image_dir(spec.key))

    def build(self, spec: ImageSpec, context: Path, *, timeout_s: float = 1800) -> Image:
        """The image for spec, built now unless cached; ImageBuildError says why not."""
        hit = self.cached(spec)
        if hit is not None:
            return hit
        self._check_tools()
        (self.root / "locks").mkdir(parents=True, exist_ok=True)
        # one builder per key at a time (two imports of tasks sharing a recipe)
        with (self.root / "locks" / f"{spec.key}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            hit = self.cached(spec)
            return hit if hit is not None else self._build(spec, context, timeout_s)

    def _check_tools(self) -> None:
        if self.mmdebstrap is None:
            raise ImageBuildError("mmdebstrap not found: `apt-get install mmdebstrap`")
        if self.bwrap is None:
            raise ImageBuildError("bwrap not found: `apt-get install bubblewrap`")
        if os.geteuid() != 0:
            raise ImageBuildError("image builds run RUN steps as root in the image: build "
                                  "as root (the sandbox that runs tasks needs no root)")

    def _build(self, spec: ImageSpec, context: Path, timeout_s: float) -> Image:
        for sub in ("images", "cache/apt", "cache/pip", "logs"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        (self.root / "images").chmod(0o755)
        if free_gb(self.root) < MIN_FREE_GB:
            raise ImageBuildError(f"{free_gb(self.root):.1f} GB free under {self.root}: "
                                  f"below {MIN_FREE_GB:g} GB, not starting a build")
        partial = self.root / "images" / f"{spec.key}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        log_path = self.root / "logs" / f"{spec.key}.log"
        deadline = time.monotonic() + timeout_s
        try:
            with log_path.open("w", encoding="utf-8") as log:
                env, workdir = self._build_into(partial, spec, context, log, deadline)
            meta = {"key": spec.key, "env": env, "workdir": workdir, "spec": spec.to_json(),
                    "note": spec.note, "built_at": time.time()}
            (partial / "build.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
            final = self.image_dir(spec.key)
            shutil.rmtree(final, ignore_errors=True)
            partial.rename(final)
            (final / "image.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
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
        self._apt_cache_hook(rootfs, install=True)
        env: dict[str, str] = {}
        workdir = "/"
        for step in spec.steps:
            if step.kind == "env":
                env[step.args[0]] = step.args[1]
            elif step.kind == "workdir":
                workdir = step.args[0]
                (rootfs / workdir.lstrip("/")).mkdir(parents=True, exist_ok=True)
            elif step.kind == "copy":
                self._copy(context, step.args[:-1], rootfs, step.args[-1])
            elif step.kind == "run":
                self.log(f"RUN {step.args[0][:70]}")
                self._run_in(rootfs, step.args[0], env, workdir, log, deadline)
        if spec.verifier_pins:
            self.log(f"verifier venv: {' '.join(spec.verifier_pins)}")
            pins = " ".join(f"'{p}'" for p in spec.verifier_pins)
            self._run_in(rootfs, f"python3 -m venv {VERIFIER_VENV} && "
                         f"{VERIFIER_VENV}/bin/pip install -q {pins}", {}, "/", log, deadline)
        self._apt_cache_hook(rootfs, install=False)
        app = rootfs / "app"
        if app.is_dir() and not app.is_symlink():
            app.rename(out / "app")
        else:
            (out / "app").mkdir()
        (rootfs / "app").mkdir()
        # The sandbox bind-mounts these into the read-only image: the dirs must exist.
        for mount in ("tests", "solution", "environment", "logs/verifier", "tmp"):
            (rootfs / mount).mkdir(parents=True, exist_ok=True)
        return env, workdir

    def _apt_cache_hook(self, rootfs: Path, *, install: bool) -> None:
        """The shared .deb cache, safe from a Dockerfile's `apt-get clean`.

        The cache is bound at APT_CACHE_MOUNT (never over the image's own archive dir,
        which `apt-get clean` empties); before each RUN its files are copied into the
        image's archive dir, and a dpkg hook copies what apt downloaded back after each
        dpkg run (before any clean in the same RUN). `install=False` removes the hook and
        the image's .deb files once the build is done (an image carries no archives).
        """
        hook = rootfs / "etc" / "apt" / "apt.conf.d" / "99tether-cache"
        if install:
            hook.parent.mkdir(parents=True, exist_ok=True)
            hook.write_text(
                'DPkg::Post-Invoke { "cp -n /var/cache/apt/archives/*.deb '
                f'{APT_CACHE_MOUNT}/ 2>/dev/null || true"; }};\n', encoding="utf-8")
            return
        hook.unlink(missing_ok=True)
        for deb in (rootfs / "var" / "cache" / "apt" / "archives").glob("*.deb"):
            deb.unlink()
        shutil.rmtree(rootfs / APT_CACHE_MOUNT.lstrip("/"), ignore_errors=True)

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

    def _copy(self, context: Path, sources: tuple[str, ...], rootfs: Path, dest: str) -> None:
        target = rootfs / dest.lstrip("/")
        matched = [p for src in sources for p in sorted(context.glob(src))]
        into_dir = dest.endswith("/") or len(matched) > 1 or target.is_dir()
        for src in matched:
            if src.is_dir():  # COPY dir dest: the dir's *contents* go to dest
                shutil.copytree(src, target, symlinks=True, dirs_exist_ok=True)
            else:
                to = target / src.name if into_dir else target
                to.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, to)

    def _run_in(self, rootfs: Path, command: str, env: dict[str, str], workdir: str,
                log: TextIO, deadline: float) -> None:
        apt_cache, pip_cache = self.root / "cache" / "apt", self.root / "cache" / "pip"
        archives = rootfs / "var" / "cache" / "apt" / "archives"
        archives.mkdir(parents=True, exist_ok=True)
        for deb in apt_cache.glob("*.deb"):  # what earlier builds downloaded
            if not (archives / deb.name).exists():
                try:
                    os.link(deb, archives / deb.name)  # same filesystem: free
                except OSError:
                    shutil.copy2(deb, archives / deb.name)
        (rootfs / APT_CACHE_MOUNT.lstrip("/")).mkdir(parents=True, exist_ok=True)
        (rootfs / "root" / ".cache" / "pip").mkdir(parents=True, exist_ok=True)
        (rootfs / workdir.lstrip("/")).mkdir(parents=True, exist_ok=True)
        argv = [self.bwrap or "bwrap", "--bind", str(rootfs), "/", "--dev", "/dev",
                "--proc", "/proc", "--perms", "1777", "--tmpfs", "/tmp", "--share-net",
                "--unshare-pid",
                "--die-with-parent", "--ro-bind", "/etc/resolv.conf", "/etc/resolv.conf",
                "--bind", str(apt_cache), APT_CACHE_MOUNT,
                "--bind", str(pip_cache), "/root/.cache/pip",
                "--chdir", workdir, "--clearenv"]
        full_env = {"PATH": BUILD_PATH, "HOME": "/root", "LANG": "C.UTF-8", **BUILD_ENV, **env}
        ca = host_ca_bundle()
        if ca is not None:
            argv += ["--ro-bind", str(ca), BUILD_CA]
            full_env.update({"PIP_CERT": BUILD_CA, "SSL_CERT_FILE": BUILD_CA,
                             "REQUESTS_CA_BUNDLE": BUILD_CA, "CURL_CA_BUNDLE": BUILD_CA})
        for key, value in full_env.items():
            argv += ["--setenv", key, value]
        self._call([*argv, "--", "/bin/sh", "-c", command], log, deadline,
                   what=f"RUN {command[:60]}")

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
            why = _error_lines(Path(log.name)) if hasattr(log, "name") else ""
            raise ImageBuildError(f"{what} failed (exit {proc.returncode}){why}; "
                                  f"build log: {getattr(log, 'name', '?')}")


def _error_lines(log_path: Path, keep: int = 2) -> str:
    """The last apt/pip error lines of a build log (`E: ...`, `ERROR: ...`), so a
    failed build says why in its one line (e.g. a package that suite does not have)."""
    try:
        lines = log_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    errors = [ln.strip() for ln in lines if ln.startswith(("E: ", "ERROR: "))]
    return (": " + " | ".join(errors[-keep:])) if errors else ""
