"""The `tether` command line.

Errors a user can act on (`TetherError`) print as one line plus a hint and exit 2;
they never show a traceback.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from rich.table import Table

from tether import __version__
from tether.console_output import make_console
from tether.errors import TetherError
from tether.models import CACHE_MODES, DEFAULT_MODEL, SPEC_FORMS, parse_model, with_cache

console = make_console()
err_console = make_console(stderr=True)


class TetherGroup(click.Group):
    """Click group that turns TetherError into a one-line message and exit code 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TetherError as exc:
            err_console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
            if exc.hint:
                err_console.print(f"[dim]hint:[/] {exc.hint}", highlight=False, soft_wrap=True)
            sys.exit(2)


@click.group(cls=TetherGroup)
@click.version_option(__version__, prog_name="tether")
def main() -> None:
    """Grounded test-time compute: harnesses scored by instruments, not opinions."""


@main.group(cls=TetherGroup)
def models() -> None:
    """Model specs: list the forms, ping a model."""


@models.command("list")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def models_list(as_json: bool) -> None:
    """Show the model spec forms tether understands."""
    if as_json:
        click.echo(json.dumps([f.__dict__ for f in SPEC_FORMS], indent=2))
        return
    table = Table(title="model specs (options may follow as ;key=value)")
    for col in ("spec", "what", "needs"):
        table.add_column(col)
    for f in SPEC_FORMS:
        table.add_row(f.pattern, f.description, f.needs)
    console.print(table)


@models.command("ping")
@click.argument("spec", default=DEFAULT_MODEL)
@click.option("--prompt", default="Reply with one short friendly sentence.", show_default=True)
@click.option("--max-tokens", default=32, show_default=True, type=click.IntRange(1))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False), help="SQLite cache file")
@click.option("--cache-mode", type=click.Choice(CACHE_MODES), default="readwrite",
              show_default=True)
@click.option("--record", type=click.Path(dir_okay=False), help="write every call to CASSETTE")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def models_ping(spec: str, prompt: str, max_tokens: int, seed: int, cache_path: str | None,
                cache_mode: str, record: str | None, as_json: bool) -> None:
    """One short generation from SPEC: prints the text, tokens and latency."""
    model = with_cache(parse_model(spec), cache=cache_path, mode=cache_mode,  # type: ignore[arg-type]
                       record=record)
    (c,) = model.generate([{"role": "user", "content": prompt}], max_tokens=max_tokens,
                          seed=seed, role="proposer")
    if as_json:
        click.echo(json.dumps({"spec": spec, **c.to_json()}, indent=2))
        return
    console.print(f"[bold]{c.model_id}[/]  ({c.finish_reason})")
    console.print(c.text, highlight=False, markup=False)
    u = c.usage
    console.print(
        f"[dim]tokens: {u.input_tokens} in, {u.output_tokens} out, {u.reasoning_tokens} reasoning"
        f" | latency {c.latency_s:.2f}s{' | cache hit' if c.cache_hit else ''}[/]"
    )


def _register_optional() -> None:
    # The sandbox CLI lives with the sandbox package; demo with its own module.
    from tether.demo import demo
    from tether.sandbox.cli import sandbox
    from tether.suites.cli import suites

    main.add_command(sandbox)
    main.add_command(suites)
    main.add_command(demo)

    from tether.runs.cli import rescore, run

    main.add_command(run)
    main.add_command(rescore)

    from tether.report.cli import report

    main.add_command(report)


def _register_tasks() -> None:
    # Terminal-task gates (`tether tasks check`) live with the agents package.
    from tether.agents.tasks_cli import tasks

    main.add_command(tasks)


def _register_measure() -> None:
    # `tether measure` (the geometry instrument as a lint command) lives in measure_cli.
    from tether.measure_cli import measure

    main.add_command(measure)


def _register_check_recorded() -> None:
    # `tether check-recorded` (re-executing the study's recorded programs) has its own module.
    from tether.check_recorded_cli import check_recorded

    main.add_command(check_recorded)


_register_optional()
_register_tasks()
_register_measure()
_register_check_recorded()
