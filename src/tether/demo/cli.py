"""`tether demo`: the main job on the embedded default model, no API key needed.

It is a real, small experiment run through the same runner, store and report as
any study: single-shot vs proposer-reviewer (execution feedback, keep-best) on the
first tasks of tether's bundled code suite, with SmolLM2-135M running in-process.
Every score is the sandboxed execution of the task's hidden checks; a 135M model
fails often, and the demo prints what happened, not what we hoped. Then it measures
the bundled example pages with the geometry instrument (their overlays go into the
report) and writes the report.
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

BASELINE, REVIEWED = "single_shot", "proposer_reviewer"


def demo_config(spec: str, n_tasks: int, budget: int, seed: int, sandbox: str) -> dict[str, Any]:
    """The demo experiment, in the same form as a TOML config (see `tether experiments list`)."""
    return {
        "name": "demo",
        "suites": ["code"],
        "limit": n_tasks,
        "strategies": [
            {"name": "single_shot", "label": BASELINE, "params": {"max_tokens": 400}},
            {"name": "proposer_reviewer", "label": REVIEWED,
             "params": {"max_iterations": 2, "feedback": "execution", "max_tokens": 400,
                        "reviewer_max_tokens": 200}},
        ],
        "models": [{"proposer": spec, "reviewer": spec}],
        "budgets": [budget],
        "seeds": [seed],
        "run": {"concurrency": 1, "sandbox": sandbox},
    }


def paired_table(records: list[TrialRecord]) -> tuple[Table, dict[str, Any]]:
    """Per task: single-shot vs reviewed on the hidden checks, and the paired sign test."""
    from tether.stats import sign_test

    by_task: dict[str, dict[str, TrialRecord]] = {}
    for r in records:
        by_task.setdefault(r.spec.task_id, {})[r.spec.arm] = r
    table = Table(title="single-shot vs proposer-reviewer (hidden checks, sandboxed)")
    for col in ("task", "single-shot", "reviewed", "iterations", "tokens (ss / rv)"):
        table.add_column(col)
    improved = regressed = 0
    for task, arms in by_task.items():
        a, b = arms.get(BASELINE), arms.get(REVIEWED)
        pa = None if a is None else a.passed
        pb = None if b is None else b.passed
        if pa is not None and pb is not None:
            improved += int(pb and not pa)
            regressed += int(pa and not pb)
        table.add_row(task, _verdict(a), _verdict(b),
                      "-" if b is None else str(b.extra.get("iterations", "-")),
                      f"{a.tokens() if a else '-'} / {b.tokens() if b else '-'}")
    test = sign_test(improved, regressed)
    return table, {"improved": improved, "regressed": regressed, "p_value": test.p_value,
                   "pass_rate": {arm: _rate(records, arm) for arm in (BASELINE, REVIEWED)}}


def _verdict(r: TrialRecord | None) -> str:
    if r is None:
        return "-"
    if r.status == "error":  # why, in a line: the kind and the start of the message
        return f"[yellow]error[/] ({esc(_why(r.error_kind, r.error_message))})"
    score = "" if r.score is None else f" ({r.score:.2f})"
    mark = "[green]pass[/]" if r.passed else "[red]fail[/]"
    return mark + score + ("" if r.status == "ok" else f" {r.status}")


def _why(kind: str | None, message: str | None, width: int = 100) -> str:
    """An error in one short line: its kind, then its message cut to `width`."""
    text = " ".join((message or "").split())
    text = text if len(text) <= width else text[: width - 1] + "…"
    return ": ".join(x for x in (kind, text) if x) or "no reason recorded"


def _rate(records: list[TrialRecord], arm: str) -> float | None:
    judged = [r.passed for r in records if r.spec.arm == arm and r.passed is not None]
    return sum(judged) / len(judged) if judged else None


def measure_examples(console: Console, out: Path, store: RunStore) -> list[dict[str, Any]]:
    """Measure the bundled example pages; their overlays go to `out` and to the report."""
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
            counts = esc(_why(None, row["error"]))
        shown = row.get("overlay") or (f"failed: {esc(_why(None, row['overlay_error']))}"
                                       if row.get("overlay_error") else "-")
        table.add_row(row["page"], row["modality"], defects, counts, shown)
    console.print(table)
    return rows


@click.command()
@click.option("--model", "spec", default=DEFAULT_MODEL, show_default=True,
              help="any model spec (tether models list)")
@click.option("--tasks", "n_tasks", default=5, show_default=True, type=click.IntRange(1))
@click.option("--budget", default=2000, show_default=True, type=click.IntRange(1),
              help="output tokens per trial, over all calls")
@click.option("--seed", default=0, show_default=True)
@click.option("--out", "out", type=click.Path(file_okay=False),
              help="run directory (default: runs/demo-TIMESTAMP)")
@click.option("--backend", type=click.Choice(["bwrap", "subprocess"]), default="bwrap",
              show_default=True, help="sandbox backend (subprocess is unsafe: tests only)")
@click.option("--visual/--no-visual", default=True, show_default=True,
              help="also measure the bundled example pages")
@click.option("--harness-items", default=20, show_default=True, type=click.IntRange(0),
              help="docs items for the harness section, bare vs human recipe (0: skip)")
@click.option("--scene/--no-scene", default=True, show_default=True,
              help="also show a displaced scene write and the refiner's repair (needs bpy)")
def demo(spec: str, n_tasks: int, budget: int, seed: int, out: str | None, backend: str,
         visual: bool, harness_items: int, scene: bool) -> None:
    """Single-shot vs proposer-reviewer on bundled code tasks, scored by execution; a report."""
    from tether.report import build_report, write_report
    from tether.runs import RunRequest, execute, prepare

    console = make_console()
    run_dir = Path(out) if out else Path("runs") / f"demo-{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    config_path = run_dir.parent / f"{run_dir.name}.config.json"
    config_path.write_text(json.dumps(demo_config(spec, n_tasks, budget, seed, backend),
                                      indent=2))
    console.print(f"[bold]tether demo[/]: {spec}, {n_tasks} bundled code tasks, "
                  f"budget {budget} output tokens per trial, seed {seed}")
    prepared = prepare(RunRequest(config=str(config_path), out=str(run_dir)))
    config_path.unlink()

    def progress(rec: TrialRecord) -> None:
        console.print(f"  {rec.spec.arm:<18} {rec.spec.task_id:<28} {_verdict(rec)}"
                      f"  {rec.tokens()} tokens, {rec.wall_s:.1f}s", highlight=False)

    result = execute(prepared, on_commit=progress)
    table, stats = paired_table(result.records)
    console.print(table)
    rates = stats["pass_rate"]
    console.print(
        f"pass rate: single-shot {_pct(rates[BASELINE])}, reviewed {_pct(rates[REVIEWED])}; "
        f"{stats['improved']} improved, {stats['regressed']} regressed, "
        f"sign-test p = {stats['p_value']:.3g}", highlight=False)
    if visual:
        measure_examples(console, run_dir / "examples", prepared.store)
    if scene:
        from tether.demo.scene import run_scene_demo

        run_scene_demo(console, prepared.store)
    if harness_items:  # the harness section: its own run and report in RUN_DIR/harness
        from tether.demo.harness import harness_section
        harness_section(console, spec, run_dir / "harness", n_items=harness_items,
                        sandbox=backend)
    report = build_report(prepared.store, baseline=BASELINE)
    path = write_report(report, prepared.store, run_dir / "report.html")
    prepared.store.close()
    console.print(f"run directory: {run_dir}\nreport: {path}", highlight=False, soft_wrap=True)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"
