"""`tether settings`: the harness-compilation settings (`tether compile --setting NAME`):
list them, show one as the teacher reads it (what it is, its resources, its metric)."""

from __future__ import annotations

import inspect
import json
from typing import Any

import click
from rich.table import Table

from tether.cli import add_literal_row, make_console
from tether.errors import ConfigError


def _summary(setting: Any) -> str:
    described = getattr(setting, "description", None)
    doc = (described if isinstance(described, str) and described.strip()
           else inspect.getdoc(type(setting)) or "")
    return doc.strip().split("\n\n", 1)[0].replace("\n", " ")


def _facts(name: str) -> dict[str, Any]:
    # Imported here: a setting's modules (numpy, images, OCR) load only for this command.
    from tether.systems.compile.compiler.prompts import resources_of, setting_text
    from tether.systems.compile.setting import get_setting

    setting = get_setting(name)  # ConfigError naming the known settings for a typo
    return {"name": name, "summary": _summary(setting), "resources": resources_of(setting),
            "aggregation": getattr(setting, "aggregation", "pass_rate"),
            "description": setting_text(setting)}


# A plain group: `tether.cli.hub` (a TetherGroup) turns errors raised below it into
# one line + hint and exit code 2.
@click.group()
def settings() -> None:
    """Harness settings (`tether compile --setting NAME`): list them, show one."""


#: the setting specs besides a registered name, and the extras each one reads through
_SPECS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("jsonl:PATH", "your JSON Lines file: id, question, answer per row", ()),
    ("csv:PATH", "your CSV file with those columns", ()),
    ("hf:PATH", "a saved dataset or a local parquet/JSONL/CSV file, via `datasets`",
     ("datasets",)),
    ("parquet:PATH", "a parquet file, via `datasets`", ("datasets",)),
    ("module:attr", "your own Setting class, factory or instance", ()),
)


def _list_row(name: str) -> dict[str, Any]:
    """A setting's row; one that cannot be built here (an extra not installed) says what
    it needs instead of stopping the listing."""
    try:
        facts = _facts(name)
    except ConfigError as exc:
        return {"name": name, "summary": f"not available here: {exc}",
                "resources": None, "aggregation": None, "needs": exc.hint}
    return {**{k: facts[k] for k in ("name", "summary", "resources", "aggregation")},
            "needs": None}


@settings.command("list")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def settings_list(as_json: bool) -> None:
    """Show the registered settings with their resources and metric aggregation; one
    that needs an extra not installed here is listed with the pip command that adds it."""
    from tether.extras import needs
    from tether.systems.compile.setting import setting_names

    rows = [_list_row(name) for name in setting_names()]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    table = Table(title="settings")
    for col in ("name", "resources", "aggregation", "what", "needs"):
        table.add_column(col)
    for r in rows:
        add_literal_row(table, r["name"], ", ".join(r["resources"] or ()) or "-",
                        r["aggregation"] or "-", r["summary"], r["needs"] or "-")
    console = make_console()
    console.print(table)
    specs = Table(title="setting specs (tether compile --setting SPEC)")
    for col in ("spec", "what", "needs"):
        specs.add_column(col)
    for spec, what, extras in _SPECS:
        add_literal_row(specs, spec, what, needs(extras) or "-")
    console.print(specs)


def _item_row(setting: Any, item: Any) -> dict[str, Any]:
    """One item as tether read it: what the student is asked, the gold the metric
    scores against, the fields a harness may enable (and the image, when there is one)."""
    row: dict[str, Any] = {"id": item.item_id, "question": item.question,
                           "gold": setting.gold(item),
                           "fields": dict(item.data.get("fields", {}))}
    if "image" in item.data:
        row["image"] = item.data["image"]
    elif "image_bytes" in item.data:
        row["image"] = f"{len(item.data['image_bytes'])} bytes, embedded"
    return row


def _first_items(name: str, n: int) -> list[dict[str, Any]]:
    from tether.systems.compile.setting import get_setting

    setting = get_setting(name)
    items = getattr(setting, "items", None)
    if not isinstance(items, list):
        raise ConfigError(f"--rows shows the rows of a data file; {name!r} is not one",
                          hint="name jsonl:PATH, csv:PATH, hf:PATH or parquet:PATH")
    return [_item_row(setting, item) for item in items[:n]]


def _print_items(rows: list[dict[str, Any]]) -> None:
    # values as JSON strings: a newline, a \r or a U+2028 in a cell shows as read
    for row in rows:
        click.echo(row["id"])
        click.echo(f"  question: {json.dumps(row['question'])}")
        click.echo(f"  gold: {json.dumps(row['gold'])}")
        for key, value in row["fields"].items():
            click.echo(f"  {key}: {json.dumps(value)}")
        if "image" in row:
            click.echo(f"  image: {row['image']}")


@settings.command("show")
@click.argument("name")
@click.option("--rows", "rows", type=click.IntRange(min=1), default=None, metavar="N",
              help="print the first N items of a data file as tether reads them")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def settings_show(name: str, rows: int | None, as_json: bool) -> None:
    """Show setting NAME as the compile teacher reads it: what it is, the resources a
    harness may enable (with their options), the metric. NAME may also be jsonl:PATH,
    csv:PATH or module:attr; with --rows N, the first N items of such a file as tether
    reads them (id, question, gold, fields)."""
    if rows is not None:
        items = _first_items(name, rows)
        if as_json:
            click.echo(json.dumps({"items": items}, indent=2))
        else:
            _print_items(items)
        return
    facts = _facts(name)
    if as_json:
        click.echo(json.dumps(facts, indent=2))
        return
    click.echo(facts["description"])
