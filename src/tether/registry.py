"""`Registry[T]`: named things of one kind, the one way tether keeps them.

Strategies, instruments, suites and suite file formats, harness settings, report
sections and commands are each a `Registry`. Modules register on import with the
decorator; a registry may be given a `load` callable that imports its package's modules
(`import_modules`), run before the first look-up (once it has succeeded, later look-ups
read what is registered: reading the installed entry points costs tens of milliseconds),
so adding a strategy or an instrument is adding a module, with no edit of a central
list. An unknown name is a ConfigError whose hint lists the known ones. An entry's
parameters are checked from its declaration (`tether.params`) before, and without,
building it; `build` hands the entry the validated declaration. Entry points are read
only through `tether.plugins`. A look-up of one name first imports only the module named
like it (`import_named`), so a run imports the systems it uses, not all five.

Modules above a registry's package in the layers (the compiled-harness strategies, the
scene and harness instruments, a study's suite format) register too, but the registry
never names them: the distribution declares them as entry points (`[project.entry-points.
"tether.strategies"]` and so on in pyproject.toml), and `import_modules` imports what
the installed metadata lists. A lower layer thus holds no reference to a higher one, and
another installed package can add strategies, instruments or suites the same way.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from tether.errors import ConfigError, did_you_mean
from tether.plugins import declared as declared_plugins, declared_names

if TYPE_CHECKING:  # the command hub keeps its commands here and must not load pydantic
    from pydantic import BaseModel

T = TypeVar("T")


class Registry(Generic[T]):
    """Names to `T` (usually factories). `kind` is the noun errors use ("strategy"),
    `plural` its plural in the hint ("strategies"; default `kind + "s"`), `forms` what
    else a look-up may name besides the registered names (the unknown-name hint ends
    with it: "or jsonl:PATH, ...")."""

    def __init__(self, kind: str, *, plural: str | None = None,
                 load: Callable[[], None] | None = None,
                 find: Callable[[str], None] | None = None, forms: str = "") -> None:
        self.kind = kind
        self.plural = plural or kind + "s"
        self.forms = forms
        self._load = load
        self._loaded_once = False
        #: imports only the module that should register a name (`import_named`): tried
        #: before `load`, which a look-up then needs only when that did not register it
        self._find = find
        self._entries: dict[str, T] = {}

    def register(self, name: str, *, replace: bool = True) -> Callable[[T], T]:
        """Decorator: `@registry.register("name")` over the thing to register. With
        `replace=False` an entry already registered under the name stays (a declared
        plugin does not replace tether's own of the same name)."""

        def deco(entry: T) -> T:
            if replace or name not in self._entries:
                self._entries[name] = entry
            return entry

        return deco

    def registered(self, name: str) -> bool:
        """Whether `name` is registered now, without loading the rest (a fast path for
        a caller that also takes other forms of name)."""
        return name in self._entries

    def _loaded(self, name: str | None = None) -> dict[str, T]:
        """The entries: all of them, or at least `name` when it can be found alone (the
        module named like it, `find`, before the whole load)."""
        if name is not None and name not in self._entries and self._find is not None:
            self._find(name)
        if (self._load is not None and not self._loaded_once
                and (name is None or name not in self._entries)):
            self._load()
            self._loaded_once = True  # after: a look-up during the load loads again
        return self._entries

    def names(self) -> list[str]:
        return sorted(self._loaded())

    def entries(self) -> dict[str, T]:
        """Every entry by name, loaded (a copy)."""
        return dict(self._loaded())

    def __contains__(self, name: object) -> bool:
        return name in self._loaded(name if isinstance(name, str) else None)

    def get(self, name: str, *, where: str = "") -> T:
        """The entry `name`; ConfigError "unknown KIND 'name'" (+ `where`, e.g. " in
        'spec'") with the known names as the hint."""
        entries = self._loaded(name)
        if name not in entries:
            known = ", ".join(sorted(entries))
            raise ConfigError(f"unknown {self.kind} {name!r}{where}",
                              hint=f"{did_you_mean(name, entries)}known {self.plural}: "
                                   f"{known}" + (f"; or {self.forms}" if self.forms else ""))
        return entries[name]

    def check(self, name: str, params: Mapping[str, Any] | None = None, *,
              where: str = "") -> BaseModel | None:
        """Validate `params` for the entry `name` from its declaration (`tether.params`),
        building nothing: the validated `Params`, or None for an undeclared entry (whose
        signature names are checked). ConfigError names the entry, the parameter and, for
        an unknown one, the closest known name."""
        from tether.params import check_params

        return check_params(f"{self.kind} {name!r}{where}", self.get(name, where=where),
                            params or {}, see=f"tether {self.plural} show {name}")

    def build(self, name: str, params: Mapping[str, Any] | None = None, *,
              where: str = "") -> Any:
        """The entry `name` built from `params`: a declared one from its validated
        `Params` instance (`factory(validated)`), an undeclared one called with `params`
        as keywords once their names passed `check` (a TypeError it raises becomes a
        ConfigError naming the entry)."""
        factory = self.get(name, where=where)
        if not callable(factory):
            raise TypeError(f"{self.kind} {name!r} is not a factory")
        validated = self.check(name, params, where=where)
        if validated is not None:
            return factory(validated)
        try:
            return factory(**(params or {}))
        except TypeError as exc:
            raise ConfigError(f"{self.kind} {name!r}{where}: bad parameters {params}: "
                              f"{exc}") from None


def import_named(package: str, name: str, *, plugins: str | None = None) -> None:
    """Import only the module that should register `name`: `package.name`, else the
    module installed distributions declare under the entry-point name `name` in the
    group `plugins`. A look-up tries this before importing everything (`import_modules`),
    so a run that names one strategy, one instrument and one suite imports those, not
    every system's modules (numpy, jinja2, the browser and terminal stacks). A name
    that finds no module, or a module that fails to import, is left to that full load,
    which reports it as it always did."""
    if not name.isidentifier():
        return
    module = f"{package}.{name}"
    try:
        if importlib.util.find_spec(module) is None:
            module = next((v.split(":")[0] for n, v in declared_names(plugins)
                           if n == name), "") if plugins else ""
        if module:
            importlib.import_module(module)
    except ImportError:
        pass


def import_modules(package: str, *, skip: frozenset[str] = frozenset(),
                   plugins: str | None = None,
                   tolerate: Literal["none", "plugins", "all"] = "none") -> dict[str, str]:
    """Import every public module of `package` (names in `skip` and `_private` ones
    left out), then every module installed distributions declare under the entry-point
    group `plugins`. A module raising ImportError (its optional extra is not installed)
    is skipped and returned as {module: reason} when `tolerate` covers it (the plugins
    only, or all); otherwise the ImportError propagates."""
    pkg = importlib.import_module(package)
    own = [f"{package}.{info.name}" for info in pkgutil.iter_modules(pkg.__path__)
           if not info.name.startswith("_") and info.name not in skip]
    declared = declared_plugins(plugins) if plugins else []
    failed: dict[str, str] = {}
    for name, tolerated in ([(n, tolerate == "all") for n in own]
                            + [(n, tolerate != "none") for n in declared]):
        try:
            importlib.import_module(name)
        except ImportError as exc:
            if not tolerated:
                raise
            failed[name] = str(exc)
    return failed

