"""Which Harbor tasks with a Dockerfile tether can run, and how (no Docker involved).

`classify_task(task_dir)` reads a task's Dockerfile (`tether.systems.terminal.dockerfile`),
its base image, compose file, `task.toml` and verifier, and says: convertible, with
an `ImageRecipe` (what `tether.systems.terminal.images` builds), or not, with the reasons.

Base images map to a Debian suite built by mmdebstrap: Debian and python images of a
release to that release; python 3.12+ images to trixie (whose python3 is 3.13: the
verifier's `uvx -p 3.13`); ubuntu:24.04 to trixie, *standing in* for it (said so in
the recipe's notes, and so in the imported task). Other bases are refused.

The verifier (tests/test.sh) of Terminal-Bench 2 installs curl and uv from the
internet and runs `uvx -p 3.13 -w pytest==8.4.1 ... pytest ARGS`. `rewrite_verifier`
keeps every other line, drops the installer lines, and runs `python -m pytest ARGS`
from a venv built into the image with the pinned `-w` packages, so it runs offline.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tether.systems.terminal.context import ContextEscape, copy_sources
from tether.systems.terminal.dockerfile import (
    DOWNLOADERS,
    DockerfileError,
    Recipe,
    Refusal,
    classify_run,
    heavy_packages,
    parse_dockerfile,
)
from tether.systems.terminal.image_disk import DEFAULT_BUILD_DISK_MB, MAX_BUILD_DISK_MB
from tether.systems.terminal.spec import writable_dir
from tether.systems.terminal.task_links import link_escape
from tether.textio import loads_toml

VERIFIER_VENV = "/opt/tether-verifier"
# Packages every image gets: the verifier venv needs python3-venv; `python` and `pip`
# exist in the python:* images the tasks were written for.
BASE_PACKAGES = ("bash", "ca-certificates", "python3", "python3-venv", "python3-pip",
                 "python-is-python3", "procps", "coreutils")  # fmt: skip

VENV_GUARD = (f'{VERIFIER_VENV}/bin/python -c "import pytest" 2>/dev/null || '
              '{ echo "tether: the verifier venv is missing or broken" >&2; exit 3; }')

_DEBIAN = {"bookworm": "bookworm", "12": "bookworm", "trixie": "trixie", "13": "trixie"}


@dataclass(frozen=True)
class BaseChoice:
    suite: str
    note: str | None = None  # said in the imported task when the suite stands in


_SUITE_PYTHON = {"bookworm": (3, 11), "trixie": (3, 13)}  # each suite's python3


def choose_suite(base: str) -> BaseChoice | Refusal:
    """The Debian suite an image is built from, or why the base has none.

    A base that names its Debian release (python:3.13-slim-bookworm, debian:12) gets
    that release: the image's own OpenSSL, libc and apt packages. What then differs
    from the real image is said in the note (a python image's interpreter version).
    """
    name, _, tag = base.partition(":")
    name = name.rsplit("/", 1)[-1] if name.startswith(("docker.io/", "library/")) else name
    tag = tag.split("@")[0] or "latest"
    if name == "python":
        version = re.match(r"(\d+)\.(\d+)", tag)
        minor = (int(version.group(1)), int(version.group(2))) if version else None
        named = next((s for s in _SUITE_PYTHON if tag.endswith(s)), None)
        if named is None and re.search(r"(bullseye|buster|alpine|windows)", tag):
            return Refusal("base_image", f"{base}: only bookworm and trixie are built here")
        # untagged: the python images of 3.12 and later are trixie's, older bookworm's
        suite = named or ("trixie" if minor is None or minor >= (3, 12) else "bookworm")
        have = _SUITE_PYTHON[suite]
        if minor is None or minor == have:
            return BaseChoice(suite)
        return BaseChoice(suite, f"{base}: {suite}'s python {have[0]}.{have[1]} stands in "
                          f"for python {minor[0]}.{minor[1]}")
    if name == "debian":
        codename = tag.split("-")[0]
        codename = codename.split(".")[0] if codename[:1].isdigit() else codename
        if codename in _DEBIAN:
            return BaseChoice(_DEBIAN[codename])
        return Refusal("base_image", f"Debian release {tag!r} is not bookworm or trixie")
    if name == "ubuntu":
        if tag.startswith(("24.04", "noble", "latest")):
            return BaseChoice("trixie", "ubuntu:24.04 image: Debian trixie stands in for it")
        if tag.startswith(("22.04", "jammy")):
            return BaseChoice("bookworm", "ubuntu:22.04 image: Debian bookworm stands in")
        return Refusal("base_image", f"ubuntu {tag!r} has no Debian stand-in here")
    return Refusal("base_image", f"base image {base!r} is not a Debian, Ubuntu or python image")


@dataclass(frozen=True)
class Verifier:
    pins: tuple[str, ...]  # what the verifier venv gets (pytest==8.4.1, ...)
    script: str  # the rewritten tests/test.sh
    system_site: bool = False  # pins came from `pip install`: the venv sees the image's


def rewrite_verifier(text: str) -> Verifier | Refusal:
    """tests/test.sh with its network installs removed and uvx replaced by the venv.

    Two forms install the verifier's packages: `uvx -w PIN ... pytest ARGS` (an isolated
    environment) and `pip install PIN...` followed by `pytest ARGS` or `python -m pytest
    ARGS` (into the container's Python). Both become a venv built into the image with
    those pins (for the pip form one that also sees the image's own packages) and
    `VENV/bin/python -m pytest ARGS`.
    """
    lines = _join_continuations(text)
    out: list[str] = []
    pins: list[str] = []
    pip_form = False
    for line in lines:
        stripped = line.strip()
        if _is_installer_line(stripped):
            continue
        uvx = re.match(r"^(\s*)(?:\S*/)?uvx\s+(.*)$", line)
        if uvx:
            prefix, args = uvx.group(1), shlex.split(uvx.group(2), comments=False)
            rest, got = _uvx_args(args)
            if rest is None:
                return Refusal("verifier", f"verifier runs uvx in a way we cannot rewrite: "
                               f"{stripped[:80]}")
            pins += got
            tool, *tool_args = rest
            if tool != "pytest":
                return Refusal("verifier", f"verifier runs {tool!r} through uvx, not pytest")
            out.append(_venv_pytest(prefix, tool_args))
            continue
        installed = _pip_pins(stripped)
        if installed is not None:
            if isinstance(installed, Refusal):
                return installed
            pins += installed
            pip_form = True
            continue
        direct = re.match(r"^(\s*)(?:\S*/)?(?:pytest|python3?(?:\.\d+)?\s+-m\s+pytest)"
                          r"(?:\s+(.*))?$", line)
        if direct and pip_form:
            out.append(_venv_pytest(direct.group(1), shlex.split(direct.group(2) or "")))
            continue
        if stripped and not stripped.startswith("#"):
            _, pip, refusals = classify_run(stripped)
            if refusals or pip:
                return Refusal("verifier", f"verifier needs the network: {stripped[:80]}")
        out.append(line)
    if pip_form and not any(p.split("==")[0].lower() == "pytest" for p in pins):
        pins.append("pytest")
    if pins:
        # A venv that is missing or cannot import pytest is the environment's failure:
        # exit before any reward is written (an infrastructure error, never reward 0).
        at = 1 if out and out[0].startswith("#!") else 0
        out.insert(at, VENV_GUARD)
    return Verifier(tuple(dict.fromkeys(pins)), "\n".join(out) + "\n", system_site=pip_form)


def _venv_pytest(prefix: str, args: list[str]) -> str:
    # /tests is read-only: no cache dir for pytest to (fail to) write there
    return f"{prefix}{VERIFIER_VENV}/bin/python -m pytest -p no:cacheprovider {shlex.join(args)}"


_PIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?"
                  r"((==|>=|<=|~=|!=|<|>)[A-Za-z0-9.*+!_-]+(,(==|>=|<=|~=|!=|<|>)"
                  r"[A-Za-z0-9.*+!_-]+)*)?$")


def _pip_pins(line: str) -> list[str] | Refusal | None:
    """The requirements of a verifier's `pip install` line (None: not one). Only named
    requirements from the index are built into the image; files, URLs and other
    options are refused (they are not pins we can install ahead of time)."""
    try:
        words = shlex.split(line.split(" #", 1)[0])
    except ValueError:
        return None
    while words and words[0] in {"sudo", "env"}:
        words = words[1:]
    if len(words) < 3:
        return None
    tool = words[0].rsplit("/", 1)[-1]
    if re.fullmatch(r"pip3?(\.\d+)?", tool):
        rest = words[1:]
    elif re.fullmatch(r"python3?(\.\d+)?", tool) and words[1:3] == ["-m", "pip"]:
        rest = words[3:]
    else:
        return None
    if not rest or rest[0] != "install":
        return None
    harmless = {"-q", "--quiet", "--no-cache-dir", "--break-system-packages", "-U",
                "--upgrade", "--disable-pip-version-check", "--root-user-action=ignore",
                "--no-input"}
    reqs = [w for w in rest[1:] if w not in harmless]
    bad = [w for w in reqs if w.startswith("-") or not _PIN.match(w)]
    if bad or not reqs:
        return Refusal("verifier", f"verifier's pip install cannot be built into the image "
                       f"ahead of time ({' '.join(bad) or 'nothing to install'})")
    return reqs


def _join_continuations(text: str) -> list[str]:
    lines: list[str] = []
    buf = ""
    for raw in text.splitlines():
        if raw.rstrip().endswith("\\"):
            buf += raw.rstrip()[:-1] + " "
            continue
        lines.append(buf + raw)
        buf = ""
    if buf:
        lines.append(buf)
    return lines


def _is_installer_line(line: str) -> bool:
    """The lines that fetch curl, pip and uv: apt-get for those, the astral.sh installer,
    sourcing uv's env file."""
    if re.match(r"^(sudo\s+)?apt(-get)?\s+update\b", line):
        return True
    if re.match(r"^(sudo\s+)?apt(-get)?\s+install\b", line):
        words = [w for w in line.split()[2:] if not w.startswith("-")]
        # curl for uv's installer; pip and venv for a `pip install` verifier (all in
        # every image already: BASE_PACKAGES)
        return set(words) <= {"curl", "ca-certificates", "wget", "python3", "python3-pip",
                              "python3-venv", "python-is-python3"}
    if "astral.sh" in line or re.match(r"^(source|\.)\s+\S*\.local/bin/env", line):
        return True
    return False


def _uvx_args(args: list[str]) -> tuple[list[str] | None, list[str]]:
    """Split uvx's own options (-p, -w/--with) from the tool and its args."""
    pins: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in {"-p", "--python"} and i + 1 < len(args):
            i += 2
        elif arg in {"-w", "--with"} and i + 1 < len(args):
            pins.append(args[i + 1])
            i += 2
        elif arg.startswith("--with="):
            pins.append(arg.split("=", 1)[1])
            i += 1
        elif arg.startswith("-"):
            return None, pins
        else:
            tool = re.split(r"[=<>@]", arg)[0]
            if arg != tool and tool == "pytest":
                pins.append(arg.replace("@", "=="))
            elif tool == "pytest" and not any(p.startswith("pytest") and
                                              re.match(r"pytest[=<>~]", p) for p in pins):
                pins.append("pytest")
            return [tool, *args[i + 1:]], pins
    return None, pins


@dataclass
class Classification:
    """A task's verdict: convertible with its recipe, or not with its reasons."""

    task: str
    task_dir: Path
    base: str = ""
    suite: str | None = None
    notes: list[str] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    recipe: Recipe | None = None
    verifier: Verifier | None = None
    #: the disk quota of the image's build (task.toml [environment].build_disk_mb)
    build_disk_mb: int = DEFAULT_BUILD_DISK_MB

    @property
    def convertible(self) -> bool:
        return not self.refusals

    def reason(self) -> str:
        return "; ".join(r.reason for r in self.refusals)


def classify_task(task_dir: Path, *, allow_heavy: bool = False) -> Classification:
    """Read one Harbor task dir and say whether (and how) it can be built."""
    task_dir = Path(task_dir)
    out = Classification(task=task_dir.name, task_dir=task_dir)
    escape = link_escape(task_dir)
    if escape is not None:  # nothing of the task is read through a link that leaves it
        out.refusals.append(Refusal("outside_task_dir", escape))
        return out
    env_dir = task_dir / "environment"
    _check_task_toml(task_dir, out)
    _check_compose(env_dir, out)
    dockerfile = env_dir / "Dockerfile"
    if not dockerfile.is_file():
        out.refusals.append(Refusal("no_dockerfile", "environment/Dockerfile missing "
                                    "(a prebuilt image or compose-only environment)"))
        return out
    try:
        recipe = parse_dockerfile(dockerfile.read_text(encoding="utf-8", errors="replace"))
    except DockerfileError as exc:
        out.refusals.append(Refusal("syntax", f"Dockerfile: {exc}"))
        return out
    out.recipe, out.base = recipe, recipe.base
    out.refusals += [r for r in recipe.refusals if allow_heavy is False or r.kind != "heavy"]
    choice = choose_suite(recipe.base)
    if isinstance(choice, Refusal):
        out.refusals.append(choice)
    else:
        out.suite = choice.suite
        if choice.note:
            out.notes.append(choice.note)
    for step in recipe.steps:
        if step.kind == "copy":
            for src in step.args[:-1]:
                try:
                    found = copy_sources(env_dir, src)
                except ContextEscape as exc:
                    out.refusals.append(Refusal("outside_context", str(exc)))
                    continue
                if not found:
                    out.refusals.append(Refusal("missing_file", f"COPY source {src} is not "
                                                "in environment/"))
    out.refusals += _scripts_run_at_build(recipe, env_dir)
    workdir = recipe.workdir.rstrip("/") or "/"
    if workdir != "/" and _is_system_dir(workdir):
        # the writable dir is mounted at WORKDIR: over a system dir it would hide the image
        out.refusals.append(Refusal("workdir", f"WORKDIR {recipe.workdir} is a system dir "
                                    "of the image; it cannot be the attempt's writable dir"))
    elif writable_dir(workdir) != "/app":
        out.notes.append(f"WORKDIR {workdir}: the attempt's writable dir is {workdir}, "
                         "not /app")
    out.notes += _solution_needs_network(task_dir / "solution" / "solve.sh")
    test_sh = task_dir / "tests" / "test.sh"
    if not test_sh.is_file():
        out.refusals.append(Refusal("no_verifier", "tests/test.sh missing"))
    else:
        verifier = rewrite_verifier(test_sh.read_text(encoding="utf-8", errors="replace"))
        if isinstance(verifier, Refusal):
            out.refusals.append(verifier)
        else:
            out.verifier = verifier
            # the verifier's pins are installed into the image at build time too, so a
            # `-w torch==...` costs the same gigabytes as a Dockerfile `pip install torch`
            heavy = heavy_packages(list(verifier.pins))
            if heavy and not allow_heavy:
                out.refusals.append(Refusal("heavy", "the verifier installs multi-GB "
                                            f"packages ({', '.join(heavy)}); pass "
                                            "--allow-heavy to build"))
    # dedupe: the same reason from several RUN lines is one reason in a table
    out.refusals = list({(r.kind, r.reason): r for r in out.refusals}.values())
    return out


# where the image's own system lives, and the sandbox's own mount points
_SYSTEM_DIRS = ("/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/proc", "/run",
                "/sbin", "/sys", "/tmp", "/usr", "/var/lib/dpkg", "/var/lib/apt", "/tests",
                "/logs", "/solution", "/environment")  # fmt: skip


def _is_system_dir(path: str) -> bool:
    """A dir the writable dir must not be mounted over (nor above: /opt holds the venv)."""
    if any(path == d or path.startswith(d + "/") for d in _SYSTEM_DIRS):
        return True
    return path in {"/var", "/opt"} or VERIFIER_VENV.startswith(path + "/") or \
        path.startswith(VERIFIER_VENV)


def _scripts_run_at_build(recipe: Recipe, env_dir: Path) -> list[Refusal]:
    """A RUN that runs a script from the build context (`bash setup.sh`) downloads if
    the script does: its lines are classified like the RUN's own."""
    copied = {Path(src).name: src for s in recipe.steps if s.kind == "copy"
              for src in s.args[:-1]}
    refusals: list[Refusal] = []
    for step in recipe.steps:
        if step.kind != "run":
            continue
        for word in re.findall(r"[\w./-]+\.(?:sh|bash)\b", step.args[0]):
            name = Path(word).name
            candidates = [env_dir / copied[name]] if name in copied else []
            candidates += [p for p in env_dir.rglob(name) if p.is_file()]
            for script in candidates[:1]:
                if script.is_dir():
                    script = script / name
                if not script.is_file():
                    continue
                for line in script.read_text(encoding="utf-8", errors="replace").splitlines():
                    _, _, found = classify_run(line.split("#", 1)[0])
                    refusals += [Refusal(r.kind, f"{r.reason} in {name}") for r in found]
    return refusals


def _solution_needs_network(solve: Path) -> list[str]:
    """A note when the oracle installs or downloads at solve time: offline it may fail
    its gate (`tether tasks check --registry` gives it the package registries). A note,
    not a refusal: the gate decides."""
    if not solve.is_file():
        # buildable, but its oracle gate cannot pass, so no run will use it
        return ["no solution/solve.sh: the oracle gate cannot pass"]
    found: set[str] = set()
    for line in solve.read_text(encoding="utf-8", errors="replace").splitlines():
        apt, pip, refusals = classify_run(line.split("#", 1)[0])
        if apt:
            found.add("apt")
        if pip:
            found.add("pip")
        found |= {r.reason.rsplit("(", 1)[-1].rstrip(")") for r in refusals}
    if not found:
        return []
    return [f"solve.sh installs or downloads at solve time ({', '.join(sorted(found))}): "
            "offline, its oracle gate may fail (--registry: the package registries)"]


def _check_task_toml(task_dir: Path, out: Classification) -> None:
    path = task_dir / "task.toml"
    if not path.is_file():
        return
    try:
        config = loads_toml(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        out.refusals.append(Refusal("syntax", f"task.toml: not UTF-8 text ({exc.reason} at "
                                    f"byte {exc.start})"))
        return
    except tomllib.TOMLDecodeError as exc:
        out.refusals.append(Refusal("syntax", f"task.toml: {exc}"))
        return
    env = config.get("environment", {}) if isinstance(config.get("environment"), dict) else {}
    if "build_disk_mb" in env:
        mb = env["build_disk_mb"]
        if isinstance(mb, bool) or not isinstance(mb, int) or not 0 < mb <= MAX_BUILD_DISK_MB:
            out.refusals.append(Refusal("syntax", f"task.toml: [environment].build_disk_mb: "
                                        f"expected a whole number of MB from 1 to "
                                        f"{MAX_BUILD_DISK_MB}, got {mb!r}"))
        else:
            out.build_disk_mb = mb
    gpus = env.get("gpus", 0)
    if isinstance(gpus, int | float) and gpus > 0 or env.get("gpu_types"):
        out.refusals.append(Refusal("gpu", f"task.toml asks for {gpus} GPU(s)"))
    if env.get("allow_internet") is True or config.get("agent", {}).get("allow_internet"):
        out.notes.append("task.toml allows internet; the sandbox gives none")


def _check_compose(env_dir: Path, out: Classification) -> None:
    for name in ("docker-compose.yaml", "docker-compose.yml", "compose.yaml"):
        path = env_dir / name
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        services = _compose_services(text)
        if len(services) > 1:
            out.refusals.append(Refusal("multi_container", f"{name} runs {len(services)} "
                                        f"containers ({', '.join(services)})"))
        if re.search(r"^\s*(devices|runtime:\s*nvidia|capabilities:.*gpu)", text, re.M):
            out.refusals.append(Refusal("gpu", f"{name} asks for devices or a GPU"))
        if re.search(r"^\s*privileged:\s*true", text, re.M):
            out.refusals.append(Refusal("service", f"{name} runs a privileged container"))


def _compose_services(text: str) -> list[str]:
    """Top-level service names of a compose file (indentation read, no YAML library)."""
    services: list[str] = []
    inside = False
    indent: int | None = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        level = len(line) - len(line.lstrip())
        if level == 0:
            inside = line.strip() == "services:"
            indent = None
            continue
        if inside:
            if indent is None:
                indent = level
            if level == indent and line.strip().endswith(":"):
                services.append(line.strip()[:-1])
    return services


__all__ = ["BASE_PACKAGES", "DOWNLOADERS", "VERIFIER_VENV", "BaseChoice", "Classification",
           "Verifier", "choose_suite", "classify_task", "rewrite_verifier"]
