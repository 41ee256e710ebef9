"""`Registry[T]`: named things of one kind (strategies, instruments, suites).

Modules register on import with the decorator; a registry may be given a `load`
callable that imports its package's modules, run before every look-up, so adding a
strategy or an instrument is adding a module, with no edit of a central list. An
unknown name is a ConfigError whose hint lists the known ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from tether.errors import ConfigError

T = TypeVar("T")


class Registry(Generic[T]):
    """Names to `T` (usually factories). `kind` is the noun errors use ("strategy"),
    `plural` its plural in the hint ("strategies"; default `kind + "s"`)."""

    def __init__(self, kind: str, *, plural: str | None = None,
                 load: Callable[[], None] | None = None) -> None:
        self.kind = kind
        self.plural = plural or kind + "s"
        self._load = load
        self._entries: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: `@registry.register("name")` over the thing to register."""

        def deco(entry: T) -> T:
            self._entries[name] = entry
            return entry

        return deco

    def _loaded(self) -> dict[str, T]:
        if self._load is not None:
            self._load()
        return self._entries

    def names(self) -> list[str]:
        return sorted(self._loaded())

    def __contains__(self, name: object) -> bool:
        return name in self._loaded()

    def get(self, name: str, *, where: str = "") -> T:
        """The entry `name`; ConfigError "unknown KIND 'name'" (+ `where`, e.g. " in
        'spec'") with the known names as the hint."""
        entries = self._loaded()
        if name not in entries:
            raise ConfigError(f"unknown {self.kind} {name!r}{where}",
                              hint=f"known {self.plural}: {', '.join(sorted(entries))}")
        return entries[name]

    def build(self, name: str, params: dict[str, Any] | None = None, *,
              where: str = "") -> Any:
        """Call the factory `name` with `params`; a TypeError (an unknown or missing
        parameter) becomes a ConfigError naming the entry and the parameters."""
        factory = self.get(name, where=where)
        if not callable(factory):
            raise TypeError(f"{self.kind} {name!r} is not a factory")
        try:
            return factory(**(params or {}))
        except TypeError as exc:
            raise ConfigError(f"{self.kind} {name!r}{where}: bad parameters {params}: "
                              f"{exc}") from None
