"""Suite registry: turn a suite spec into a list of Tasks.

Spec forms (see `SPEC_FORMS`):
- `NAME`            a bundled suite registered with `@register_suite(NAME)` (e.g. `code`);
- `FORMAT:PATH`     a task file in a registered foreign format (`register_format`);
  `FAMILY:PATH`     picks the `FAMILY/...` format whose sniffer accepts the file, so
                    `interaction-scaling:PATH` works for code and visual files alike;
- `tether:PATH` or a plain `PATH` to a tether JSON / JSONL suite file.

Suites and formats are two `Registry`s (tether.registry), `SUITES` and `SUITE_FORMATS`.
Modules of this package, and the systems' modules declared as `tether.suites` entry
points, register on import; `_load_builtins` imports them all, so adding a suite or a
format is adding a module, with no edit of this file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.core import Task
from tether.errors import ConfigError
from tether.registry import Registry, import_modules, import_named
from tether.suites.json_file import read_json_file
from tether.suites.tether_format import load_tether_file

SuiteLoader = Callable[[], list[Task]]
FormatLoader = Callable[[Path], list[Task]]
FormatSniffer = Callable[[Path], bool]


@dataclass(frozen=True)
class SpecForm:
    pattern: str
    description: str


SPEC_FORMS: tuple[SpecForm, ...] = (
    SpecForm("NAME", "a bundled suite (see `tether suites list`), e.g. code"),
    SpecForm("interaction-scaling:PATH", "a task file of the interaction-scaling study"),
    SpecForm("FORMAT:PATH", "a task file in another registered format"),
    SpecForm("tether:PATH or PATH", "a tether suite file: JSON list or JSONL of Task objects"),
)


@dataclass(frozen=True)
class _Format:
    loader: FormatLoader
    sniff: FormatSniffer | None


def _load_builtins() -> None:
    # Every public module of tether.suites registers its suites/formats on import, and so
    # do the `tether.suites` entry points of layers above (the systems' suites, a study's
    # formats; see tether.registry). A module needing an optional extra must not take
    # every suite down: the unknown-spec hint says what was not loaded and why.
    failed = import_modules("tether.suites", skip=frozenset({"registry"}),
                            plugins="tether.suites", tolerate="all")
    for module, why in failed.items():
        _UNAVAILABLE[module.rsplit(".", 1)[-1]] = why


#: the bundled suites: name -> a zero-argument loader of Tasks
SUITES: Registry[SuiteLoader] = Registry("suite", load=_load_builtins)
#: the task-file formats of `FORMAT:PATH` specs
SUITE_FORMATS: Registry[_Format] = Registry("suite format", load=_load_builtins)
_UNAVAILABLE: dict[str, str] = {}  # module -> ImportError message


def register_suite(name: str) -> Callable[[SuiteLoader], SuiteLoader]:
    """Decorator: `@register_suite("code")` over a zero-argument loader of Tasks."""
    return SUITES.register(name)


def register_format(name: str, loader: FormatLoader | None = None, *,
                    sniff: FormatSniffer | None = None) -> Any:
    """Register `loader(path) -> list[Task]` for specs `name:PATH`.

    A name `family/variant` with a `sniff(path) -> bool` also answers `family:PATH`
    whenever its sniffer accepts the file. Usable directly or as a decorator.
    """

    def deco(fn: FormatLoader) -> FormatLoader:
        SUITE_FORMATS.register(name)(_Format(fn, sniff))
        return fn

    return deco(loader) if loader is not None else deco


def suite_names() -> list[str]:
    """Names of the bundled suites."""
    return SUITES.names()


def format_names() -> list[str]:
    """Names of the registered file formats (without the built-in `tether`)."""
    return SUITE_FORMATS.names()


def load_suite(spec: str) -> list[Task]:
    """The Tasks a spec names; ConfigError (with the known forms) when it names none."""
    spec = spec.strip()
    prefix, sep, rest = spec.partition(":")
    if not (SUITES.registered(spec) or (sep and SUITE_FORMATS.registered(prefix))):
        # the module named like it first: a run imports only the systems it names
        import_named("tether.suites", prefix, plugins="tether.suites")
    if spec in SUITES:  # registered now, or after the whole load
        return SUITES.get(spec)()
    if sep and prefix == "tether":
        return _load_tether(rest)
    if sep and prefix in SUITE_FORMATS:
        return SUITE_FORMATS.get(prefix).loader(_existing_path(rest, spec))
    if sep and _family(prefix):
        return _load_family(prefix, _existing_path(rest, spec))
    if Path(spec).is_file():
        return _load_tether(spec)
    raise ConfigError(f"unknown suite spec {spec!r}", hint=_known_forms_hint())


def _load_tether(path: str) -> list[Task]:
    return load_tether_file(_existing_file(path, f"tether:{path}"))


def _family(prefix: str) -> list[str]:
    return sorted(n for n in SUITE_FORMATS.names() if n.startswith(prefix + "/"))


def _load_family(family: str, path: Path) -> list[Task]:
    members = _family(family)
    formats = SUITE_FORMATS.entries()
    for name in members:
        fmt = formats[name]
        if fmt.sniff is not None and fmt.sniff(path):
            return fmt.loader(path)
    raise ConfigError(
        f"{path}: not a task file any {family} format recognizes",
        hint=f"known {family} formats: {', '.join(members)}; name one as FORMAT:PATH",
    )


def _existing_path(path: str, spec: str) -> Path:
    """A file or a directory (a format may load task folders, e.g. Harbor task dirs)."""
    p = Path(path).expanduser()
    if not path:
        raise ConfigError(f"suite spec {spec!r} names no file", hint="write FORMAT:PATH")
    if not p.exists():
        raise ConfigError(f"suite path not found: {p} (from spec {spec!r})",
                          hint="check the path; relative paths are from the current directory")
    return p


def _existing_file(path: str, spec: str) -> Path:
    p = _existing_path(path, spec)
    if not p.is_file():
        raise ConfigError(f"not a suite file: {p} (from spec {spec!r})",
                          hint="a tether suite file is a .json list or a .jsonl file")
    return p


def is_json_task_list(path: Path, accept: Callable[[dict[str, Any]], bool]) -> bool:
    """A format sniffer: a non-empty JSON list whose objects all pass `accept`."""
    try:
        data = read_json_file(path)
    except ConfigError:
        return False
    return (isinstance(data, list) and bool(data)
            and all(isinstance(t, dict) and accept(t) for t in data))


def load_json_task_list(path: Path, what: str,
                        to_task: Callable[[Any, int, Path], Task]) -> list[Task]:
    """A JSON list of task objects -> Tasks; errors name the file (and the duplicate id)."""
    data = read_json_file(path)
    if not isinstance(data, list):
        raise ConfigError(f"{path}: expected a JSON list of {what} task objects, "
                          f"got {type(data).__name__}")
    tasks = [to_task(obj, i, path) for i, obj in enumerate(data)]
    seen: set[str] = set()
    for t in tasks:
        if t.id in seen:
            raise ConfigError(f"{path}: duplicate task_id {t.id!r}")
        seen.add(t.id)
    return tasks


def _known_forms_hint() -> str:
    forms = "; ".join(f.pattern for f in SPEC_FORMS)
    suites = ", ".join(SUITES.names()) or "none"
    fmts = ", ".join(["tether", *SUITE_FORMATS.names(), *sorted(_families())])
    hint = f"spec forms: {forms}. Bundled suites: {suites}. Formats: {fmts}"
    if _UNAVAILABLE:
        hint += ". Not loaded (missing dependency): " + "; ".join(
            f"{mod}: {why}" for mod, why in sorted(_UNAVAILABLE.items()))
    return hint


def _families() -> set[str]:
    return {n.split("/", 1)[0] for n in SUITE_FORMATS.names() if "/" in n}
