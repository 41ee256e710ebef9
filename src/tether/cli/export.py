"""`tether export RUN_DIR`: a run's model calls as fine-tuning data (JSON lines)."""

from __future__ import annotations

from pathlib import Path

import click

from tether.runs.export import FORMATS, ExportCounts, export_examples, write_jsonl
from tether.runs.store import RunStore


@click.command("export")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="chat-jsonl",
              show_default=True, help="chat-jsonl: OpenAI chat examples; preference: "
                                      "chosen/rejected pairs from keep-best loops")
@click.option("--only", type=click.Choice(["passed"]), default=None,
              help="only trials whose metric passed")
@click.option("--roles", multiple=True, metavar="ROLE",
              help="only calls made under these roles (repeatable; default: all; "
                   "preference: proposer)")
@click.option("--per", type=click.Choice(["call", "trajectory"]), default="call",
              show_default=True, help="one example per model call, or per (trial, role)")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="the JSONL file to write")
def export(run_dir: Path, fmt: str, only: str | None, roles: tuple[str, ...], per: str,
           out: Path) -> None:
    """Write RUN_DIR's model calls as training examples, metadata beside each one.

    Only what the model was sent and what it answered goes into the messages; the store
    is opened read-only.
    """
    counts = ExportCounts()
    with RunStore.open(run_dir, readonly=True) as store:
        # click.Choice limits fmt and per to the ExportFormat / per literals
        n = write_jsonl(export_examples(store, fmt=fmt, per=per,  # type: ignore[arg-type]
                                        only_passed=only == "passed",
                                        roles=roles or None, counts=counts), out)
    skipped = ", ".join(f"{k}: {v}" for k, v in sorted(counts.skipped.items())) or "none"
    click.echo(f"{n} examples from {counts.trials} trials -> {out} (skipped: {skipped})")
