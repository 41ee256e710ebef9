"""`tether strategies` and `tether instruments`: list what is registered, show one's
parameters (name, default, type) as its factory declares them."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table

from tether.cli.console import add_literal_row, make_console
from tether.errors import ConfigError

if TYPE_CHECKING:
    from tether.registry import Registry


def parameters(factory: Any) -> list[dict[str, str]]:
    """(name, default, type) of each keyword a factory takes; a class's own __init__."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return []
    out = []
    for p in sig.parameters.values():
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue
        default = "required" if p.default is p.empty else repr(p.default)
        kind = "" if p.annotation is p.empty else str(p.annotation)
        out.append({"name": p.name, "default": default, "type": kind})
    return out


def summary(factory: Any) -> str:
    doc = inspect.getdoc(factory) or ""
    return doc.split("\n\n", 1)[0].replace("\n", " ")


def reference_group(name: str, registry: Callable[[], Registry[Any]], noun: str) -> click.Group:
    """The group of one registry; `registry` is called when a command runs, so the
    registered classes (and what they import) load only then, not for `--help`."""
    @click.group(name=name, help=f"The registered {name}: list them, show one's parameters.")
    def group() -> None:
        pass

    @group.command("list")
    @click.option("--json", "as_json", is_flag=True, help="machine-readable output")
    def list_(as_json: bool) -> None:
        reg = registry()
        rows = [{"name": n, "summary": summary(reg.get(n))} for n in reg.names()]
        if as_json:
            click.echo(json.dumps(rows, indent=2))
            return
        table = Table(title=name)
        for col in ("name", "what"):
            table.add_column(col)
        for r in rows:
            add_literal_row(table, r["name"], r["summary"])
        make_console().print(table)

    @group.command("show")
    @click.argument("entry")
    @click.option("--json", "as_json", is_flag=True, help="machine-readable output")
    def show(entry: str, as_json: bool) -> None:
        factory = registry().get(entry)  # ConfigError with "did you mean" for a typo
        params = parameters(factory)
        if as_json:
            click.echo(json.dumps({"name": entry, "summary": summary(factory),
                                   "params": params}, indent=2))
            return
        console = make_console()
        table = Table(title=f"{noun} {entry}: {summary(factory)}")
        for col in ("param", "default", "type"):
            table.add_column(col)
        for p in params:
            add_literal_row(table, p["name"], p["default"], p["type"])
        console.print(table)

    del list_, show
    return group


def _strategies() -> Registry[Any]:
    from tether.strategies.base import STRATEGIES

    return STRATEGIES


def _instruments() -> Registry[Any]:
    from tether.instruments.base import INSTRUMENTS

    return INSTRUMENTS


strategies = reference_group("strategies", _strategies, "strategy")
instruments = reference_group("instruments", _instruments, "instrument")
__all__ = ["ConfigError", "instruments", "parameters", "strategies"]
