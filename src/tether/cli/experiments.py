"""`tether experiments list|show`: the experiments tether ships (tether.runs.shipped).

Each one runs by name (`tether run humaneval`); `show` prints its TOML, to read or to
copy and edit (`tether experiments show humaneval > mine.toml`).
"""

from __future__ import annotations

import json

import click
from rich.table import Table

from tether.cli.console import esc, make_console
from tether.errors import ConfigError, did_you_mean


@click.group("experiments")
def experiments() -> None:
    """The experiments tether ships: list them, show one (each runs by name)."""


@experiments.command("list")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def list_(as_json: bool) -> None:
    """Every shipped experiment: its name (what `tether run NAME` takes) and what it runs."""
    from tether.runs import header_summary, shipped_experiments

    rows = [{"name": name, "path": str(path), "summary": header_summary(path)}
            for name, path in shipped_experiments().items()]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    table = Table(title=f"{len(rows)} shipped experiments (tether run NAME; "
                        "tether experiments show NAME)")
    table.add_column("name", no_wrap=True)
    table.add_column("what it runs", overflow="fold")
    for row in rows:
        table.add_row(row["name"], esc(row["summary"]))
    make_console().print(table)


@experiments.command("show")
@click.argument("name")
def show(name: str) -> None:
    """Print the TOML of the shipped experiment NAME (redirect it to a file to edit it)."""
    from tether.runs import shipped_experiments

    found = shipped_experiments()
    key = name[:-5] if name.endswith(".toml") else name
    if key not in found:
        raise ConfigError(f"no shipped experiment {name!r}",
                          hint=did_you_mean(key, found) + "tether experiments list names them")
    click.echo(found[key].read_text(encoding="utf-8"), nl=False)
