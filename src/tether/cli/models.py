"""`tether models`: list the spec forms, ping a model."""

from __future__ import annotations

import json

import click
from rich.table import Table

from tether.cli.choices import CACHE_MODES, DEFAULT_MODEL
from tether.cli.console import add_literal_row, esc, make_console
from tether.cli.group import TetherGroup

console = make_console()


@click.group(cls=TetherGroup)
def models() -> None:
    """Model specs: list the forms, ping a model."""


@models.command("list")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def models_list(as_json: bool) -> None:
    """Show the model spec forms tether understands."""
    from tether.models import SPEC_FORMS

    if as_json:
        click.echo(json.dumps([f.__dict__ for f in SPEC_FORMS], indent=2))
        return
    table = Table(title="model specs (options may follow as ;key=value)")
    for col in ("spec", "what", "needs"):
        table.add_column(col)
    for f in SPEC_FORMS:
        add_literal_row(table, f.pattern, f.description, f.needs)
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
    from tether.models import parse_model, with_cache

    # click.Choice limits cache_mode to the cache mode literals
    model = with_cache(parse_model(spec), cache=cache_path, mode=cache_mode,  # type: ignore[arg-type]
                       record=record)
    (c,) = model.generate([{"role": "user", "content": prompt}], max_tokens=max_tokens,
                          seed=seed, role="proposer")
    if as_json:
        click.echo(json.dumps({"spec": spec, **c.to_json()}, indent=2))
        return
    console.print(f"[bold]{esc(c.model_id)}[/]  ({esc(c.finish_reason)})")
    console.print(c.text, highlight=False, markup=False)
    u = c.usage
    console.print(
        f"[dim]tokens: {u.input_tokens} in, {u.output_tokens} out, {u.reasoning_tokens} reasoning"
        f" | latency {c.latency_s:.2f}s{' | cache hit' if c.cache_hit else ''}[/]"
    )
