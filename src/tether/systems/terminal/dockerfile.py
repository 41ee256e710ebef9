"""A small, explicit Dockerfile reader for the subset tether can build without Docker.

Read: FROM (one stage), RUN (shell or exec form), COPY/ADD of local paths, WORKDIR,
ENV, ARG; LABEL, MAINTAINER, CMD, ENTRYPOINT and USER are read and ignored (a terminal
task's container only idles until the agent's commands arrive, and the sandbox always
runs them as its own unprivileged user). Anything else, and every RUN that downloads
with something other than apt or pip, is a `Refusal` with its reason: the image is
built from Debian packages by `tether.systems.terminal.images`, so what needs a registry image,
a service, a GPU or the open internet at build time is not something we can reproduce.

Parsing never executes anything; `classify_run` looks at each shell segment of a RUN.

Hand-written rather than dockerfile-parse, which reads the same instructions but silently
drops one left open by a backslash at the end of the file (refused here), keeps each
continuation line's indentation inside the joined command, and reads a heredoc's body
lines as instructions; the rest of this module (what a RUN installs or downloads, ARG/ENV
substitution in order, COPY into the work dir) is tether's own either way.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from dataclasses import dataclass, field

IGNORED = frozenset({"LABEL", "MAINTAINER", "CMD", "ENTRYPOINT", "USER", "STOPSIGNAL"})
SERVICE = frozenset({"EXPOSE", "HEALTHCHECK", "VOLUME"})
# Tools that fetch from the internet at build time outside apt and pip.
DOWNLOADERS = ("curl", "wget", "git", "npm", "npx", "yarn", "cargo", "go", "rustup",
               "conda", "mamba", "gem", "aria2c", "huggingface-cli", "gdown", "svn",
               "hf", "ollama")  # fmt: skip
# Packages whose wheels run to gigabytes (CUDA torch above all): skipped by default.
HEAVY_PIP = ("torch", "torchvision", "torchaudio", "tensorflow", "jax", "jaxlib",
             "nvidia-", "vllm", "xformers", "flash-attn", "triton", "deepspeed",
             "sentence-transformers", "mteb", "paddlepaddle")  # fmt: skip
GPU_HINTS = ("nvidia", "cuda", "cudnn", "rocm")
# What $PATH is before any ENV changes it (Docker's default for Debian-based images).
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class DockerfileError(ValueError):
    """The text is not a Dockerfile we can read at all (bad syntax)."""


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper-case: FROM, RUN, COPY, ...
    args: str  # the rest of the logical line, continuations joined
    line: int  # 1-based line of the instruction's first line


@dataclass(frozen=True)
class Refusal:
    """Why a task cannot be converted: a short kind (for tables) and a sentence."""

    kind: str  # download, service, gpu, multi_container, base_image, heavy, syntax, ...
    reason: str


@dataclass(frozen=True)
class Step:
    """One build step in order: copy (sources relative to the context), run, env, workdir."""

    kind: str  # "copy" | "run" | "env" | "workdir"
    args: tuple[str, ...]


@dataclass
class Recipe:
    """What the Dockerfile asks for, in the terms an mmdebstrap build needs."""

    base: str
    steps: list[Step] = field(default_factory=list)
    apt: list[str] = field(default_factory=list)
    pip: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    workdir: str = "/"
    refusals: list[Refusal] = field(default_factory=list)


def logical_lines(text: str) -> list[Instruction]:
    """Join backslash continuations, drop comments and blank lines; heredocs refused."""
    out: list[Instruction] = []
    buf: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not buf and (not stripped or stripped.startswith("#")):
            continue
        if buf and stripped.startswith("#"):
            continue  # a comment inside a continued instruction is dropped by Docker too
        if not buf:
            start = number
        if stripped.endswith("\\"):
            buf.append(stripped[:-1])
            continue
        buf.append(stripped)
        joined = " ".join(part.strip() for part in buf if part.strip())
        buf = []
        keyword, _, rest = joined.partition(" ")
        if "<<" in rest and keyword.upper() in {"RUN", "COPY", "ADD"} and re.search(
                r"<<-?\s*['\"]?[A-Za-z_]+['\"]?\s*$", rest.split("\n")[0]):
            raise DockerfileError(f"line {start}: heredoc in {keyword} is not supported")
        out.append(Instruction(keyword.upper(), rest.strip(), start))
    if buf:
        raise DockerfileError("the file ends inside a continued line")
    return out


def substitute(text: str, variables: dict[str, str]) -> str:
    """$NAME, ${NAME} and ${NAME:-default} from ARG/ENV values seen so far."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        default = match.group(3)
        if name in variables:
            return variables[name]
        return default if default is not None else match.group(0)

    return re.sub(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\})",
                  one, text)


def _pairs(args: str, keyword: str) -> list[tuple[str, str]]:
    """ENV/ARG bodies: `K=V K2="v 2"` or the old `K value with spaces` form."""
    words = shlex.split(args, posix=True)
    if not words:
        raise DockerfileError(f"{keyword} with nothing to set")
    if "=" not in words[0]:
        if keyword == "ARG":
            return [(words[0], "")]
        return [(words[0], args.split(None, 1)[1] if len(words) > 1 else "")]
    out = []
    for word in words:
        key, sep, value = word.partition("=")
        if not sep and keyword != "ARG":
            raise DockerfileError(f"{keyword} {args!r}: mixes K=V and K V forms")
        out.append((key, value))
    return out


def _run_text(args: str) -> str:
    if args.startswith("["):
        try:
            argv = json.loads(args)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise DockerfileError(f"RUN exec form is not JSON: {exc}") from None
        return shlex.join(str(a) for a in argv)
    if args.startswith("--"):  # RUN --mount=... / --network=...: BuildKit features
        raise DockerfileError(f"RUN option {args.split()[0]!r} is not supported")
    return args


_SEGMENT_SPLIT = re.compile(r"&&|\|\||;|\|")


def classify_run(command: str) -> tuple[list[str], list[str], list[Refusal]]:
    """(apt packages, pip requirements, refusals) of one RUN's shell command."""
    apt: list[str] = []
    pip: list[str] = []
    refusals: list[Refusal] = []
    for segment in _SEGMENT_SPLIT.split(command):
        try:
            words = shlex.split(segment)
        except ValueError:
            words = segment.split()
        while words and ("=" in words[0] and not words[0].startswith("-")):
            words = words[1:]  # FOO=bar cmd: an environment prefix
        if words and words[0] in {"sudo", "env", "nice", "time"}:
            words = words[1:]
        if not words:
            continue
        tool = words[0].rsplit("/", 1)[-1]
        if tool in {"apt-get", "apt"} and "install" in words:
            apt += [w for w in words[words.index("install") + 1:] if not w.startswith("-")]
        elif _is_pip(words) and "install" in words:
            reqs = _pip_requirements(words[words.index("install") + 1:])
            for req in reqs:
                if req.startswith(("git+", "http://", "https://")) or "://" in req:
                    refusals.append(Refusal("download", f"pip installs from a URL ({req})"))
            pip += reqs
        elif tool in DOWNLOADERS:
            if tool == "git" and len(words) > 1 and words[1] not in {
                    "clone", "fetch", "pull", "submodule", "ls-remote", "lfs"}:
                continue  # git init/commit/config build a repo locally: fine
            refusals.append(Refusal("download", f"downloads at build time ({tool})"))
    return apt, pip, refusals


# pip options whose value is the next word (an index is still pip: allowed at build time)
_PIP_VALUE_OPTIONS = frozenset({"-i", "--index-url", "--extra-index-url", "-f", "--find-links",
                                "-c", "--constraint", "-t", "--target", "--prefix", "--root",
                                "--platform", "--python-version", "--trusted-host",
                                "--cache-dir", "--src", "--upgrade-strategy", "--timeout"})


def _pip_requirements(args: list[str]) -> list[str]:
    """The requirement words of `pip install ARGS` (option values skipped; -r files kept
    out: what they list is not known here)."""
    reqs: list[str] = []
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word in _PIP_VALUE_OPTIONS or word in {"-r", "--requirement"}:
            skip = True
        elif not word.startswith("-"):
            reqs.append(word)
    return reqs


def _is_pip(words: list[str]) -> bool:
    tool = words[0].rsplit("/", 1)[-1]
    if re.fullmatch(r"pip3?(\.\d+)?", tool):
        return True
    if tool == "uv" and len(words) > 1 and words[1] == "pip":
        return True
    return bool(re.fullmatch(r"python3?(\.\d+)?", tool) and words[1:3] == ["-m", "pip"])


def heavy_packages(requirements: list[str]) -> list[str]:
    """The requirements whose distributions run to gigabytes (skipped by default)."""
    out = []
    for req in requirements:
        name = re.split(r"[<>=!~\[; ]", req, maxsplit=1)[0].lower()
        if any(name == h or (h.endswith("-") and name.startswith(h)) for h in HEAVY_PIP):
            out.append(req)
    return out


def parse_dockerfile(text: str, build_args: dict[str, str] | None = None) -> Recipe:
    """The recipe of a Dockerfile; what cannot be built lands in `recipe.refusals`.

    DockerfileError only for text that is not a readable Dockerfile at all.
    """
    variables: dict[str, str] = {"PATH": DEFAULT_PATH, **(build_args or {})}
    recipe = Recipe(base="")
    froms = 0
    for ins in logical_lines(text):
        kw, args = ins.keyword, ins.args
        if kw == "FROM":
            froms += 1
            words = args.split()
            if froms > 1 or (len(words) >= 3 and words[1].upper() == "AS"):
                recipe.refusals.append(Refusal("multi_stage", "multi-stage build "
                                               "(FROM ... AS / several FROM)"))
            recipe.base = substitute(words[0], variables) if words else ""
            if any(h in recipe.base.lower() for h in GPU_HINTS):
                recipe.refusals.append(Refusal("gpu", f"GPU base image {recipe.base}"))
            if words and words[0].startswith("--platform"):
                recipe.base = words[1] if len(words) > 1 else ""
        elif kw == "ARG":
            for key, value in _pairs(args, kw):
                variables.setdefault(key, value)
        elif kw == "ENV":
            for key, value in _pairs(substitute(args, variables), kw):
                variables[key] = value
                recipe.env[key] = value
                recipe.steps.append(Step("env", (key, value)))
        elif kw == "WORKDIR":
            path = substitute(args.strip().strip('"'), variables)
            recipe.workdir = path if path.startswith("/") else (
                recipe.workdir.rstrip("/") + "/" + path)
            recipe.steps.append(Step("workdir", (recipe.workdir,)))
        elif kw == "RUN":
            command = substitute(_run_text(args), variables)
            apt, pip, refusals = classify_run(command)
            recipe.apt += apt
            recipe.pip += pip
            recipe.refusals += refusals
            if any(h in command.lower() for h in ("nvidia-smi", "cuda-toolkit", "nvcc")):
                recipe.refusals.append(Refusal("gpu", "installs or uses a GPU toolkit"))
            recipe.steps.append(Step("run", (command,)))
        elif kw in {"COPY", "ADD"}:
            recipe.steps.append(_copy_step(kw, substitute(args, variables), recipe))
        elif kw in SERVICE:
            recipe.refusals.append(Refusal("service", f"{kw} {args} (a long-running service)"))
        elif kw in IGNORED:
            continue
        else:
            recipe.refusals.append(Refusal("unsupported", f"instruction {kw} is not supported"))
    if froms == 0:
        raise DockerfileError("no FROM instruction")
    heavy = heavy_packages(recipe.pip)
    if heavy:
        recipe.refusals.append(Refusal("heavy", "pip installs multi-GB packages "
                                       f"({', '.join(heavy)}); pass --allow-heavy to build"))
    return recipe


def _copy_step(kw: str, args: str, recipe: Recipe) -> Step:
    if args.startswith("["):
        try:
            words = [str(w) for w in json.loads(args)]
        except (json.JSONDecodeError, RecursionError) as exc:
            raise DockerfileError(f"{kw} exec form is not JSON: {exc}") from None
    else:
        words = shlex.split(args)
    flags = [w for w in words if w.startswith("--")]
    paths = [w for w in words if not w.startswith("--")]
    if len(paths) < 2:
        raise DockerfileError(f"{kw} {args!r}: needs a source and a destination")
    *sources, dest = paths
    if any(f.startswith("--from") for f in flags):
        recipe.refusals.append(Refusal("multi_stage", f"{kw} --from another image or stage"))
        return Step("copy_from", (*sources, dest))  # not from the build context
    for src in sources:
        if "://" in src:
            recipe.refusals.append(Refusal("download", f"{kw} from a URL ({src})"))
        elif kw == "ADD" and re.search(r"\.(tar|tgz|tar\.\w+)$", src):
            recipe.refusals.append(Refusal("unsupported", f"ADD auto-extracts archive {src}"))
    is_dir = dest.endswith("/") or dest in {".", ".."}
    if not dest.startswith("/"):
        dest = posixpath.join(recipe.workdir, dest)
    dest = posixpath.normpath(dest)
    if is_dir and not dest.endswith("/"):
        dest += "/"  # a trailing slash means "into this dir" (several sources, or one)
    return Step("copy", (*sources, dest))
