"""`tether reproduce`: a paper's table recomputed from the study's recorded data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from tether.cli import add_literal_row, make_console
from tether.errors import ConfigError

#: what --data must be (tether.studies.tables.IS_LAYOUT, repeated: --help imports no table)
_LAYOUT = "a folder in the layout of shared/reference/interaction-scaling"


@click.command("reproduce")
@click.argument("table_id", metavar="ID|list")
@click.option("--data", "data", type=click.Path(path_type=Path),
              help=f"the study's recorded data: {_LAYOUT} (read, never copied)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def reproduce(table_id: str, data: Path | None, as_json: bool) -> None:
    """Recompute a paper's table from its recorded data (`list` names them).

    Each table is computed with the paper's own statistics (its SD convention, its
    bootstrap), which its output states under "convention"; rows the recorded files do
    not hold are listed under "not_recorded", never filled in.
    """
    from tether.studies.tables import find_table

    if table_id == "list":
        _list(data, as_json)
        return
    table = find_table(table_id)
    if data is None:
        raise ConfigError(f"{table_id} needs --data DIR", hint=f"DIR is {_LAYOUT}")
    result = table.compute(data)
    if as_json:
        click.echo(json.dumps(result))
        return
    _print(result)


def _list(data: Path | None, as_json: bool) -> None:
    from tether.studies.tables import TABLES

    rows: list[dict[str, Any]] = [
        {"id": t.id, "title": t.title, "paper": t.paper, "needs": list(t.needs),
         **({"available": not t.missing(data)} if data is not None else {})}
        for t in TABLES]
    if as_json:
        click.echo(json.dumps(rows))
        return
    from rich.table import Table

    table = Table(title="tables tether reproduce recomputes from recorded data")
    for col in ("id", "what", "needs (under --data)",
                *(("available",) if data is not None else ())):
        table.add_column(col)
    for row in rows:
        cells = [row["id"], row["title"], "\n".join(str(n) for n in row["needs"])]
        if data is not None:
            cells.append("yes" if row["available"] else "no")
        add_literal_row(table, *cells)
    make_console().print(table)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1e}" if 0 < abs(value) < 1e-2 else f"{value:g}"
    if isinstance(value, list):
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    return str(value)


def _print(result: dict[str, Any]) -> None:
    from rich.table import Table

    rows: list[dict[str, Any]] = result["rows"]
    columns = list(dict.fromkeys(k for r in rows for k in r if k != "source"))
    table = Table(title=f"{result['table']}: {result['title']}")
    for col in columns:
        table.add_column(col)
    for row in rows:
        add_literal_row(table, *(_cell(row.get(c)) for c in columns))
    console = make_console()
    console.print(table)
    console.print(f"convention: {result['convention']}", markup=False)
    for key, value in result.items():
        if key in ("table", "paper", "title", "convention", "rows"):
            continue
        for line in value if isinstance(value, list) else [json.dumps(value)]:
            console.print(f"{key.replace('_', ' ')}: {line}", markup=False)
