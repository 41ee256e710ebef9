"""`tether export RUN_DIR`: a run's model calls as fine-tuning data (JSON lines), or the
run as Inspect AI eval logs (`--format inspect`, one `.eval` file per arm in `--out`)."""

from __future__ import annotations

from pathlib import Path

import click

from tether.cli.choices import EXPORT_FORMATS as FORMATS
from tether.errors import ConfigError

#: written by tether.integrations.inspect_log (the `inspect` extra)
INSPECT = "inspect"


@click.command("export")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice([*FORMATS, INSPECT]), default="chat-jsonl",
              show_default=True, help="chat-jsonl: OpenAI chat examples; preference: "
                                      "chosen/rejected pairs from keep-best loops; inspect: "
                                      "Inspect AI eval logs, one per arm, in the --out folder")
@click.option("--only", type=click.Choice(["passed"]), default=None,
              help="only trials whose metric passed")
@click.option("--roles", multiple=True, metavar="ROLE",
              help="only calls made under these roles (repeatable; default: all; "
                   "preference: proposer)")
@click.option("--per", type=click.Choice(["call", "trajectory"]), default="call",
              show_default=True, help="one example per model call, or per (trial, role)")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="the JSONL file to write (inspect: the folder for the .eval logs)")
def export(run_dir: Path, fmt: str, only: str | None, roles: tuple[str, ...], per: str,
           out: Path) -> None:
    """Write RUN_DIR's model calls as training examples, metadata beside each one.

    Only what the model was sent and what it answered goes into the messages; the store
    is opened read-only.
    """
    from tether.runs import ExportCounts, RunStore, export_examples, write_jsonl

    if fmt == INSPECT:
        _export_inspect(run_dir, out)
        return
    if out.is_dir():
        raise ConfigError(f"--out {out} is a folder", hint="name the JSONL file to write")
    counts = ExportCounts()
    with RunStore.open(run_dir, readonly=True) as store:
        # click.Choice limits fmt and per to the ExportFormat / per literals
        n = write_jsonl(export_examples(store, fmt=fmt, per=per,  # type: ignore[arg-type]
                                        only_passed=only == "passed",
                                        roles=roles or None, counts=counts), out)
    skipped = ", ".join(f"{k}: {v}" for k, v in sorted(counts.skipped.items())) or "none"
    click.echo(f"{n} examples from {counts.trials} trials -> {out} (skipped: {skipped})")


def _export_inspect(run_dir: Path, out: Path) -> None:
    from tether.plugins import plugin

    try:
        # the Inspect bridge sits above the kernel: reached through its entry point
        export_inspect_logs = plugin("tether.exporters", INSPECT)
    except ImportError as exc:
        raise ConfigError(f"--format inspect needs inspect_ai ({exc.name} is not installed)",
                          hint="pip install 'tether[inspect]'") from None
    if export_inspect_logs is None:
        raise ConfigError("--format inspect: no exporter is installed for it",
                          hint="reinstall tether (its entry point tether.exporters:inspect)")
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file", hint="--format inspect writes a folder")
    from tether.runs import RunStore

    with RunStore.open(run_dir, readonly=True) as store:
        paths = export_inspect_logs(store, out)
    click.echo(f"{len(paths)} Inspect logs (one per arm) -> {out}: "
               + ", ".join(p.name for p in paths))
