"""`tether demo`: the main job on the embedded default model, no API key needed.

A real experiment through `tether.run`, the same runner, store and report as any study:
SmolLM2-135M's greedy single-shot draft against best-of-4 picked by the visible checks
(tether.demo.headline says why this pair), on tether's 28 bundled code tasks, every score
the sandboxed run of the task's hidden checks. A 135M model fails often; the demo prints
what happened, and says so plainly when the grounded arm gained nothing. Then it measures
the bundled example pages with the geometry instrument, shows the scene refiner's repair
of a displaced write, and writes the report.

With `--json` everything readable goes to stderr and stdout gets one JSON object at the
end: its `headline` holds `improved`, `regressed`, `p` (the paired sign test) and each
arm's `pass_rate`.
"""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table

from tether.cli import DEFAULT_MODEL, esc, make_console

if TYPE_CHECKING:  # the runner, store and records load when the demo runs, not for --help
    from rich.console import Console

    from tether.core import TrialRecord
    from tether.runs import RunStore


def measure_examples(console: Console, out: Path, store: RunStore) -> list[dict[str, Any]]:
    """Measure the bundled example pages; their overlays go to `out` and to the report."""
    from tether.demo.headline import why
    from tether.systems.pages import measure_example_pages

    rows = measure_example_pages(out)
    kept = []
    for row in rows:
        png = row.pop("overlay_png_b64", None)
        digest = store.put_blob(base64.b64decode(png)) if png else None
        kept.append({**row, "overlay_digest": digest})
    store.set_meta("measured_pages", kept)
    table = Table(title="bundled example pages, measured (geometry, default profile)")
    for col in ("page", "modality", "defects", "by kind", "overlay"):
        table.add_column(col)
    for row in rows:
        counts = ", ".join(f"{k} {n}" for k, n in sorted(row["counts"].items())) or "-"
        defects = "[red]error[/]" if row.get("error") else str(row["n_defects"])
        if row.get("error"):  # the row says why it has no counts
            counts = esc(why(None, row["error"]))
        shown = row.get("overlay") or (f"failed: {esc(why(None, row['overlay_error']))}"
                                       if row.get("overlay_error") else "-")
        table.add_row(row["page"], row["modality"], defects, counts, shown)
    console.print(table)
    return rows


@click.command()
@click.option("--model", "spec", default=DEFAULT_MODEL, show_default=True,
              help="any model spec (tether models list)")
@click.option("--tasks", "n_tasks", type=click.IntRange(1),
              help="the first N bundled code tasks  [default: all 28]")
@click.option("--seed", default=0, show_default=True)
@click.option("--out", "out", type=click.Path(file_okay=False),
              help="run directory (default: runs/demo-TIMESTAMP)")
@click.option("--backend", type=click.Choice(["bwrap", "subprocess"]), default="bwrap",
              show_default=True, help="sandbox backend (subprocess is unsafe: tests only)")
@click.option("--visual/--no-visual", default=True, show_default=True,
              help="also measure the bundled example pages")
@click.option("--harness-items", default=0, show_default=True, type=click.IntRange(0),
              help="docs items for a harness section, bare vs the human recipe (0: none; "
                   "the 135M student scores 0 on both, docs/results.md)")
@click.option("--scene/--no-scene", default=True, show_default=True,
              help="also show a displaced scene write and the refiner's repair (needs bpy)")
@click.option("--json", "as_json", is_flag=True,
              help="print a JSON summary last on stdout (the rest goes to stderr)")
def demo(spec: str, n_tasks: int | None, seed: int, out: str | None, backend: str,
         visual: bool, harness_items: int, scene: bool, as_json: bool) -> None:
    """Single-shot vs best-of-4 picked by visible checks, scored by hidden checks; a report."""
    from tether.demo.headline import (
        BASELINE,
        headline_config,
        headline_lines,
        headline_numbers,
        paired_table,
        verdict,
    )
    from tether.report import build_report, write_report
    from tether.runs import RunStore, run

    console = make_console(stderr=as_json)
    started = time.monotonic()
    run_dir = Path(out) if out else Path("runs") / f"demo-{time.strftime('%Y%m%d-%H%M%S')}"
    console.print(f"[bold]tether demo[/]: {spec} on "
                  f"{'the first ' + str(n_tasks) if n_tasks else 'all 28'} bundled code tasks, "
                  f"single-shot vs best-of-4 picked by the visible checks, seed {seed}",
                  highlight=False)

    def progress(rec: TrialRecord) -> None:
        console.print(f"  {rec.spec.arm:<12} {rec.spec.task_id:<24} {verdict(rec)}"
                      f"  {rec.tokens('output')} output tokens, {rec.wall_s:.1f}s",
                      highlight=False)

    outcome = run(headline_config(spec, n_tasks, seed, backend), out=run_dir, on_trial=progress)
    console.print(paired_table(outcome.records))
    headline = headline_numbers(outcome)
    for line in headline_lines(headline):
        console.print(line, highlight=False)
    summary: dict[str, Any] = {"model": spec, "seed": seed, "run_dir": str(run_dir),
                               "headline": headline}
    store = RunStore.open(run_dir)
    try:
        if visual:
            rows = measure_examples(console, run_dir / "examples", store)
            summary["pages"] = {r["page"]: r["n_defects"] for r in rows}
        if scene:
            from tether.demo.scene import run_scene_demo

            row = run_scene_demo(console, store)
            summary["scene"] = None if row is None else {"pl": row["pl"],
                                                         "accepted": row["accepted"]}
        if harness_items:  # its own run and report in RUN_DIR/harness
            from tether.demo.harness import harness_section
            summary["harness"] = harness_section(console, spec, run_dir / "harness",
                                                 n_items=harness_items, sandbox=backend)
        path = write_report(build_report(store, baseline=BASELINE), store,
                            run_dir / "report.html")
    finally:
        store.close()
    summary.update(report=str(path), wall_s=round(time.monotonic() - started, 1))
    console.print(f"run directory: {run_dir}\nreport: {path}", highlight=False, soft_wrap=True)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
