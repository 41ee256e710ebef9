"""`tether tasks check DIR...`: the oracle, null-agent and determinism gates of terminal
tasks in the Harbor layout (see `tether.terminal.gates`)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from tether.cli.console import make_console
from tether.errors import ConfigError
from tether.terminal.gates import GateRow, check_tasks, load_task_dirs


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


@click.group("tasks")
def tasks() -> None:
    """Terminal tasks in the Harbor layout: check them."""


@tasks.command("check")
@click.argument("dirs", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
@click.option("--jobs", "-j", default=2, show_default=True, type=click.IntRange(1, 16),
              help="tasks checked at a time")
def check(dirs: tuple[Path, ...], as_json: bool, jobs: int) -> None:
    """Gate each task dir (a DIR holding task dirs is expanded): the oracle
    (solution/solve.sh) must get reward 1, the null agent (no commands) reward 0, and
    the verifier the same reward twice on the oracle's final state.

    Exit 0 when every task passes every gate, 1 when any fails, 2 on bad input.
    """
    task_list = load_task_dirs(list(dirs))
    if not task_list:
        raise ConfigError("no task dirs found", hint="pass task dirs or dirs holding them")
    console = make_console(stderr=as_json)
    start = time.monotonic()
    with console.status(f"checking {len(task_list)} task(s), {jobs} at a time"):
        rows = check_tasks(task_list, jobs=jobs)
    took = time.monotonic() - start
    if as_json:
        click.echo(json.dumps([r.to_json() for r in rows], indent=2))
    else:
        _print_table(console, rows, took)
    sys.exit(0 if all(r.ok for r in rows) else 1)


def _print_table(console: Console, rows: list[GateRow], took: float) -> None:
    table = Table(title="terminal task gates (oracle = 1, null = 0, verifier deterministic)")
    for col in ("task", "oracle", "null", "deterministic", "seconds", "verdict", "error"):
        table.add_column(col, overflow="fold")
    for r in rows:
        det = "-" if r.deterministic is None else ("yes" if r.deterministic else "NO")
        verdict = "[green]ok[/]" if r.ok else "[red]FAIL[/]"
        table.add_row(r.task, _fmt(r.oracle_reward), _fmt(r.null_reward), det,
                      f"{r.duration_s:.1f}", verdict, r.error or "")
    console.print(table)
    bad = sum(not r.ok for r in rows)
    console.print(f"{len(rows) - bad}/{len(rows)} task(s) pass every gate in {took:.1f}s")
