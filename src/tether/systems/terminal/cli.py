"""`tether tasks check DIR...`: the oracle, null-agent and determinism gates of terminal
tasks in the Harbor layout (see `tether.systems.terminal.gates`)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table

from tether.cli import DEFAULT_IMAGE_DIR, esc, make_console
from tether.errors import ConfigError

if TYPE_CHECKING:  # tether.systems.terminal loads when a command runs, not for --help
    from rich.console import Console

    from tether.systems.terminal.gates import GateRow
    from tether.systems.terminal.importer import ImportRow


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


@click.group("tasks")
def tasks() -> None:
    """Terminal tasks in the Harbor layout: import (from Dockerfiles) and check them."""


@tasks.command("check")
@click.argument("dirs", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
@click.option("--jobs", "-j", default=2, show_default=True, type=click.IntRange(1, 16),
              help="tasks checked at a time")
@click.option("--registry", "registry_access", is_flag=True,
              help="let setup and solution reach the package registries (only those, every "
                   "request logged), as a run with registry_access = true does")
def check(dirs: tuple[Path, ...], as_json: bool, jobs: int, registry_access: bool) -> None:
    """Gate each task dir (a DIR holding task dirs is expanded): the oracle
    (solution/solve.sh) must get reward 1, the null agent (no commands) reward 0, and
    the verifier the same reward twice on the oracle's final state.

    Every task given is checked: one that cannot be loaded (or a path holding no task
    dir) is a failing row with the loader's message, and the others are still checked.
    Exit 0 when every task passes every gate, 1 when any fails (or cannot be loaded),
    2 on bad input (no task dir at all).
    """
    from tether.systems.terminal.gates import Unloadable, check_tasks, load_task_dirs
    from tether.systems.terminal.imported import read_image_ref, write_gate_result

    task_list = load_task_dirs(list(dirs))
    if not task_list:
        raise ConfigError("no task dirs found", hint="pass task dirs or dirs holding them")
    console = make_console(stderr=as_json)
    start = time.monotonic()
    with console.status(f"checking {len(task_list)} task(s), {jobs} at a time"):
        rows = check_tasks(task_list, jobs=jobs, registry_access=registry_access)
    for task, row in zip(task_list, rows, strict=True):
        if isinstance(task, Unloadable):
            continue
        task_dir = Path(task.data["task_dir"])
        if read_image_ref(task_dir) is not None:  # imported: a run reads this cache
            write_gate_result(task_dir, row.to_json(), row.ok)
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
        table.add_row(esc(r.task), _fmt(r.oracle_reward), _fmt(r.null_reward), det,
                      f"{r.duration_s:.1f}", verdict, esc(r.error or ""))
    console.print(table)
    bad = sum(not r.ok for r in rows)
    console.print(f"{len(rows) - bad}/{len(rows)} task(s) pass every gate in {took:.1f}s")


@tasks.command("import")
@click.argument("sources", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path),
              help="where imported task dirs are written (required unless --dry-run)")
@click.option("--dry-run", is_flag=True, help="only print the convertible / not table")
@click.option("--images", "image_dir", default=str(DEFAULT_IMAGE_DIR), show_default=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="image cache (images by recipe hash, apt and pip download caches)")
@click.option("--allow-heavy", is_flag=True,
              help="also build tasks that pip-install multi-GB packages (CUDA torch, ...)")
@click.option("--only", multiple=True, help="import only these task names (repeatable)")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def import_(sources: tuple[Path, ...], out: Path | None, dry_run: bool, image_dir: Path,
            allow_heavy: bool, only: tuple[str, ...], as_json: bool) -> None:
    """Turn Harbor task dirs with Dockerfiles (SOURCES: task dirs or dirs of them, e.g. a
    Terminal-Bench 2 checkout) into tether tasks whose environment is an image built
    from Debian packages by mmdebstrap, without Docker. What cannot be built that way
    (downloads at build time, services, GPUs, several containers) is refused with its
    reason. Imported tasks must pass `tether tasks check` before a run uses them.

    Exit 0 when every selected task converted (or, with --dry-run, always after the
    table), 1 when any build failed, 2 on bad input.
    """
    from tether.systems.terminal.harbor import expand_task_dirs
    from tether.systems.terminal.images import ImageBuilder
    from tether.systems.terminal.importer import classify_all, dry_run_row, import_tasks

    if not dry_run and out is None:
        raise ConfigError("--out DIR is required unless --dry-run",
                          hint="tether tasks import SRC --out DIR")
    dirs = expand_task_dirs(list(sources))
    if only:
        dirs = [d for d in dirs if d.name in set(only)]
    if not dirs:
        raise ConfigError("no task dirs selected", hint="check SOURCES and --only")
    classified = classify_all(dirs, allow_heavy=allow_heavy)
    console = make_console(stderr=as_json)
    if dry_run:
        rows = [dry_run_row(c) for c in classified]
    else:
        assert out is not None
        builder = ImageBuilder(image_dir, log=lambda m: console.log(m))
        rows = import_tasks(classified, out, builder,
                            on_row=lambda r: console.log(f"{r.task}: {r.status} {r.reason}"))
    if as_json:
        click.echo(json.dumps([r.to_json() for r in rows], indent=2))
    else:
        _print_import(console, rows, dry_run)
    sys.exit(0 if dry_run or all(r.status != "failed" for r in rows) else 1)


def _print_import(console: Console, rows: list[ImportRow], dry_run: bool) -> None:
    title = "Harbor tasks: convertible without Docker?" if dry_run else "imported tasks"
    table = Table(title=title)
    for col in ("task", "status", "base", "suite", "image", "reason / note"):
        table.add_column(col, overflow="fold")
    colour = {"convertible": "green", "built": "green", "cached": "green",
              "refused": "yellow", "failed": "red"}
    for r in rows:
        table.add_row(esc(r.task), f"[{colour[r.status]}]{r.status}[/]", esc(r.base),
                      esc(r.suite or "-"), esc(r.image or "-"), esc(r.reason))
    console.print(table)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.status] = counts.get(r.status, 0) + 1
    console.print(", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
                  + f" of {len(rows)} task(s)")
