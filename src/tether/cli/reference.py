"""`tether strategies` and `tether instruments`: list what is registered, show one's
parameters (name, type, default, description) as its `Params` declaration gives them
(`tether.params`; an undeclared plugin's signature, without descriptions)."""

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

#: defaults longer than this (prompt templates) are cut in the table; --json has them whole
_SHOWN = 48


def parameters(factory: Any) -> list[dict[str, str]]:
    """(name, type, default, description) of each parameter a factory declares."""
    from tether.params import describe_params  # pydantic: loaded by the command, not --help

    return [p.to_json() for p in describe_params(factory)]


def summary(factory: Any) -> str:
    """The first paragraph of the class's docstring, else of its module's (where a
    module holds one strategy, its docstring describes it)."""
    doc = inspect.getdoc(factory) or inspect.getdoc(inspect.getmodule(factory)) or ""
    return doc.split("\n\n", 1)[0].replace("\n", " ")


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


def reference_group(name: str, registry: Callable[[], Registry[Any]], noun: str,
                    facts: Callable[[str, Any], dict[str, str]] | None = None) -> click.Group:
    """The group of one registry; `registry` is called when a command runs, so the
    registered classes (and what they import) load only then, not for `--help`.
    `facts(entry, factory)` adds lines to `show` (a strategy's roles, whether an
    instrument calls a model)."""
    @click.group(name=name, help=f"The registered {name}: list them, show one's parameters.")
    def group() -> None:
        pass

    @group.command("list")
    @click.option("--json", "as_json", is_flag=True, help="machine-readable output")
    def list_(as_json: bool) -> None:
        from tether.extras import needs  # loaded when a listing runs, not for --help

        reg = registry()
        # `needs`: the pip command of the extras an entry runs on that are not installed
        # here (its class's `extras`, tether.extras); None when it runs as installed
        rows = [{"name": n, "summary": summary(reg.get(n)),
                 "needs": needs(getattr(reg.get(n), "extras", ()))} for n in reg.names()]
        if as_json:
            click.echo(json.dumps(rows, indent=2))
            return
        table = Table(title=name)
        for col in ("name", "what", "needs"):
            table.add_column(col)
        for r in rows:
            add_literal_row(table, r["name"], r["summary"], r["needs"] or "-")
        make_console().print(table)

    @group.command("show")
    @click.argument("entry")
    @click.option("--json", "as_json", is_flag=True, help="machine-readable output")
    def show(entry: str, as_json: bool) -> None:
        """Show ENTRY's parameters: name, type, default and what each does."""
        factory = registry().get(entry)  # ConfigError with "did you mean" for a typo
        params = parameters(factory)
        more = facts(entry, factory) if facts else {}
        if as_json:
            click.echo(json.dumps({"name": entry, "summary": summary(factory), **more,
                                   "params": params}, indent=2))
            return
        console = make_console()
        table = Table(title=f"{noun} {entry}: {summary(factory)}", title_justify="left")
        for col in ("param", "type", "default", "description"):
            table.add_column(col, overflow="fold")
        for p in params:
            add_literal_row(table, p["name"], p["type"], _cut(p["default"]), p["description"])
        console.print(table)
        for key, value in more.items():
            click.echo(f"{key}: {value}")

    del list_, show
    return group


def _strategy_facts(entry: str, factory: Any) -> dict[str, str]:
    from tether.strategies import strategy_roles

    fixed = getattr(factory, "roles", None)
    if isinstance(fixed, tuple):
        return {"roles": ", ".join(fixed)}
    try:
        roles = ", ".join(strategy_roles(entry, {}))
    except ConfigError:  # a required parameter: the roles cannot be read without it
        return {}
    return {"roles": f"{roles} (with the defaults: they depend on the params)"}


def _instrument_facts(entry: str, factory: Any) -> dict[str, str]:
    return {"grounded": "yes" if getattr(factory, "grounded", False) else "no",
            "calls a model": "yes" if getattr(factory, "calls_model", False) else "no"}


def _strategies() -> Registry[Any]:
    from tether.strategies import STRATEGIES

    return STRATEGIES


def _instruments() -> Registry[Any]:
    from tether.instruments import INSTRUMENTS

    return INSTRUMENTS


strategies = reference_group("strategies", _strategies, "strategy", _strategy_facts)
instruments = reference_group("instruments", _instruments, "instrument", _instrument_facts)
__all__ = ["ConfigError", "instruments", "parameters", "strategies"]
