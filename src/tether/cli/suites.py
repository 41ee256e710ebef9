"""`tether suites`: list the suite spec forms and bundled suites, show a suite's tasks."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table

from tether.cli.console import add_literal_row, make_console

if TYPE_CHECKING:  # the suite registry loads when a command runs, not for --help
    from tether.core import Task

console = make_console()


# A plain group: `tether.cli.hub` (a TetherGroup) turns errors raised below it into
# one line + hint and exit code 2.
@click.group()
def suites() -> None:
    """Task suites: bundled ones, foreign task files, tether suite files."""


@suites.command("list")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def suites_list(as_json: bool) -> None:
    """Show the bundled suites (with task counts), file formats and spec forms."""
    from tether.suites import SPEC_FORMS, format_names, load_suite, suite_names

    bundled: list[dict[str, Any]] = [{"name": n, "tasks": len(load_suite(n))}
                                     for n in suite_names()]
    forms = [{"spec": f.pattern, "what": f.description} for f in SPEC_FORMS]
    formats = ["tether", *format_names()]
    if as_json:
        click.echo(json.dumps({"suites": bundled, "formats": formats, "spec_forms": forms},
                              indent=2))
        return
    table = Table(title="bundled suites")
    table.add_column("name")
    table.add_column("tasks", justify="right")
    for s in bundled:
        add_literal_row(table, s["name"], s["tasks"])
    console.print(table)
    forms_table = Table(title="suite specs")
    forms_table.add_column("spec")
    forms_table.add_column("what")
    for f in forms:
        add_literal_row(forms_table, f["spec"], f["what"])
    console.print(forms_table)
    console.print(f"formats: {', '.join(formats)}", highlight=False)


@suites.command("show")
@click.argument("spec")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def suites_show(spec: str, as_json: bool) -> None:
    """Show the tasks SPEC names: id, kind, difficulty, entry point, metric."""
    from tether.suites import load_suite

    rows = [_row(t) for t in load_suite(spec)]
    if as_json:
        click.echo(json.dumps({"spec": spec, "count": len(rows), "tasks": rows}, indent=2))
        return
    table = Table(title=f"{spec}: {len(rows)} tasks")
    for col in ("#", "id", "kind", "difficulty", "entry point", "metric"):
        table.add_column(col, overflow="fold")
    for i, r in enumerate(rows):
        table.add_row(str(i), r["id"], r["kind"] or "", r["difficulty"] or "",
                      r["entry_point"] or "", r["metric"])
    console.print(table)


@suites.command("schema")
def suites_schema() -> None:
    """Print the JSON Schema of a tether suite file."""
    from tether.suites import suite_file_json_schema

    click.echo(json.dumps(suite_file_json_schema(), indent=2))


def _row(task: Task) -> dict[str, Any]:
    return {
        "id": task.id,
        "suite": task.suite,
        "kind": task.data.get("kind"),
        "difficulty": task.data.get("difficulty"),
        "entry_point": task.data.get("entry_point"),
        "metric": task.metric,
    }
