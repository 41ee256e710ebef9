"""`tether sandbox ...`: run a command in the sandbox from the shell.

The top-level CLI loads this group when it is used (`tether.cli.hub.LAZY_COMMANDS`).
Exit codes of `exec`: 0 the command exited 0 and was not killed; 1 otherwise;
2 the sandbox itself could not run (one line on stderr, no traceback).
The command's own status is `returncode` in the output: 128+N when killed by signal N.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.panel import Panel
from rich.table import Table

from tether.cli.choices import DEFAULT_DISK_MB, SANDBOX_BACKENDS as BACKENDS
from tether.cli.console import make_console

if TYPE_CHECKING:  # the sandbox loads when a command runs, not for --help
    from rich.console import Console

    from tether.sandbox import SandboxResult


@click.group()
def sandbox() -> None:
    """Run commands in the sandbox that model-written code runs in."""


def _print_human(result: SandboxResult, console: Console) -> None:
    table = Table(show_header=False, box=None)
    table.add_row("returncode", str(result.returncode))
    table.add_row("killed_reason", str(result.killed_reason))
    table.add_row("timed_out", str(result.timed_out))
    table.add_row("duration", f"{result.duration_s * 1000:.1f} ms")
    table.add_row("files_out", ", ".join(sorted(result.files_out)) or "-")
    if result.files_omitted:
        table.add_row(
            "files_omitted",
            ", ".join(f"{f.name} ({f.size} bytes, {f.reason})" for f in result.files_omitted),
        )
    quota = result.disk_quota_mb
    table.add_row("disk_quota", f"{quota} MB" if quota is not None else "not enforced")
    console.print(table)
    for title, text, elided in (
        ("stdout", result.stdout, result.stdout_elided),
        ("stderr", result.stderr, result.stderr_elided),
    ):
        if text:
            suffix = f" ({elided} characters elided)" if elided else ""
            console.print(Panel(text.rstrip("\n"), title=title + suffix, expand=False))


@sandbox.command("exec", context_settings={"ignore_unknown_options": True})
@click.option("--backend", type=click.Choice(BACKENDS), default="bwrap", show_default=True)
@click.option("--timeout-s", type=float, default=30.0, show_default=True)
@click.option("--memory-mb", type=int, default=512, show_default=True)
@click.option("--max-procs", type=int, default=64, show_default=True)
@click.option(
    "--disk-mb",
    type=click.IntRange(min=0),
    default=DEFAULT_DISK_MB,
    show_default=True,
    help="Disk quota of the work dir (a size-limited mount; needs root). 0: none.",
)
@click.option(
    "--file",
    "file_paths",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Copy into the work dir (by basename). Repeatable.",
)
@click.option("--network/--no-network", default=False, help="Allow network (default: none).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.argument("argv", nargs=-1, required=True, type=click.UNPROCESSED)
def exec_cmd(
    backend: str,
    timeout_s: float,
    memory_mb: int,
    max_procs: int,
    disk_mb: int,
    file_paths: tuple[Path, ...],
    network: bool,
    as_json: bool,
    argv: tuple[str, ...],
) -> None:
    """Run ARGV in a fresh sandbox work dir: tether sandbox exec [OPTIONS] -- ARGV..."""
    from tether.sandbox import SandboxError, get_sandbox
    from tether.textio import read_bytes

    files = {p.name: read_bytes(p, what="file") for p in file_paths}  # bounded
    try:
        box = get_sandbox(backend)
        result = box.run(
            list(argv),
            files=files,
            timeout_s=timeout_s,
            memory_mb=memory_mb,
            max_procs=max_procs,
            network=network,
            disk_mb=disk_mb,
        )
    except SandboxError as exc:
        hint = f" (hint: {exc.hint})" if exc.hint else ""
        click.echo(f"error: {exc}{hint}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        _print_human(result, make_console())
    sys.exit(0 if result.ok else 1)
