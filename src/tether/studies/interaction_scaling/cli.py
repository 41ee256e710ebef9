"""`tether check-recorded`: re-execute recorded programs and compare with their verdicts."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from tether.cli import SANDBOX_BACKENDS as BACKENDS


@click.command("check-recorded")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--tasks", "tasks_file", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="the tasks file the records were made on (test_code per task_id)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
@click.option("--jobs", default=2, show_default=True, type=click.IntRange(1, 64),
              help="programs run in parallel")
@click.option("--sandbox", default="bwrap", show_default=True, type=click.Choice(BACKENDS),
              help="subprocess gives no isolation: for hosts without bwrap only")
@click.option("--dedupe/--no-dedupe", default=True, show_default=True,
              help="run a program repeated for the same task once (records still judged "
                   "one by one)")
def check_recorded(file: Path, tasks_file: Path, as_json: bool, jobs: int, sandbox: str,
                   dedupe: bool) -> None:
    """Re-run FILE's programs with the study's rule (program + test_code, exit 0 in 30 s).

    Exit 0 when every verdict agrees with the recorded one, 1 otherwise.
    """
    from tether.studies.interaction_scaling.recorded_programs import (
        load_records,
        load_task_checks,
        recheck,
    )

    records = load_records(file)
    checks = load_task_checks(tasks_file)
    start = time.monotonic()
    report = recheck(records, checks, sandbox=sandbox, jobs=jobs, dedupe=dedupe)
    elapsed = time.monotonic() - start
    if as_json:
        click.echo(json.dumps(report.to_json()))
    else:
        click.echo(f"{file.name}: {report.records} records, {report.agree} agree, "
                   f"{report.disagree} disagree, {len(report.errors)} sandbox errors "
                   f"({report.executions} executions, {elapsed:.1f} s, {jobs} jobs, {sandbox})")
        for rid in report.disagreements:
            click.echo(f"  disagree: {rid}")
        for rid in report.errors:
            click.echo(f"  error: {rid}")
    if report.disagreements or report.errors:
        raise SystemExit(1)
