"""`tether report RUN_DIR`: the HTML report of a run (and its numbers as JSON)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import click
from rich.markup import escape
from rich.table import Table

from tether.cli.console import add_literal_row, make_console


@click.command("report")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--baseline", metavar="STRATEGY",
              help="arm (or strategy name) the others are compared with; "
                   "default: single_shot if present, else the first arm")
@click.option("--compare", "other_dir", type=click.Path(file_okay=False, path_type=Path),
              metavar="OTHER_RUN", help="set another run's scores of the same trials beside "
                                        "this run's (e.g. a rescored run)")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="HTML file to write (default RUN_DIR/report.html); plots and trial pages "
                   "go to OUT_assets/ next to it")
@click.option("--prices", type=click.Path(dir_okay=False), metavar="FILE",
              help="price table (TOML/JSON: model -> price_in, price_out per million tokens) "
                   "for dollar costs, over the prices the run was started with")
@click.option("--json", "as_json", is_flag=True, help="print the report's numbers as JSON")
def report(run_dir: Path, baseline: str | None, other_dir: Path | None, out: Path | None,
           prices: str | None, as_json: bool) -> None:
    """Write the HTML report of RUN_DIR: summary, paired tests, plots, one page per trial.

    The run's store is opened read-only: a report never changes it. A build directory
    an earlier `tether compile` wrote gets its HC report instead (the compile system's).
    """
    from tether.plugins import plugins
    from tether.runs import DB_NAME, RunStore, StoreError, damaged

    # another kind of directory (an old `tether compile` build directory) is reported by the
    # system that wrote it, reached through the entry points `tether.directory_reports`
    for write_other in plugins("tether.directory_reports").values():
        found = write_other(run_dir, out)
        if found is None:
            continue
        path, hc = found
        if as_json:
            click.echo(json.dumps({"report": str(path), **hc}, indent=2, sort_keys=True,
                                  default=str))
        else:
            click.echo(f"report: {path}")
        return
    with RunStore.open(run_dir, readonly=True) as store:
        other = RunStore.open(other_dir, readonly=True) if other_dir is not None else None
        try:
            # the report's plots and statistics (matplotlib, scipy) load only when a report
            # is written, so `tether --help` and every other command start fast
            from tether.report import build_report, write_report

            result = build_report(store, baseline=baseline, other=other, prices=prices)
            path = write_report(result, store, out or run_dir / "report.html")
        except sqlite3.DatabaseError as exc:  # a damaged page, found past the opening
            if other_dir is None:
                raise damaged(run_dir / DB_NAME, exc) from None
            raise StoreError(f"{run_dir / DB_NAME} or {other_dir / DB_NAME} is damaged: "
                             f"{exc}") from None
        finally:
            if other is not None:
                other.close()
    if as_json:
        click.echo(json.dumps({"report": str(path), **result.numbers}, indent=2,
                              sort_keys=True))
        return
    # Piped output has no terminal width: keep rows on one line rather than wrap at 80.
    console = make_console()
    for table in terminal_tables(result.numbers):
        console.print(table)
    click.echo(f"report: {path}")


def terminal_tables(numbers: dict[str, Any]) -> list[Table]:
    """The summary and the paired comparisons, as the HTML shows them."""
    from tether.report import effect, pvalue, score

    metric = numbers["metric"]
    summary = Table(title=f"{metric['label']} ({metric['direction']}), 95% CI")
    for col in ("arm", "budget", "trials", "scored", metric["label"], "errors"):
        summary.add_column(col)
    for r in numbers["summary"]:
        add_literal_row(summary, r["arm"], r["budget"], str(r["n_trials"]), str(r["score"]["n"]),
                        score(r["score"]), str(r["errors"]))
    tables = [summary]
    for title, rows in (("paired against " + numbers["baseline"], numbers["paired"]),
                        ("within trials: single-shot draft vs delivered",
                         numbers["within_trial"])):
        if not rows:
            continue
        table = Table(title=title)
        for col in ("A", "B", "budget", "better", "worse", "ties", "sign-test p", "effect"):
            table.add_column(col)
        for r in rows:
            add_literal_row(table, r["baseline"], r["arm"], r["budget"], str(r["improved"]),
                          str(r["regressed"]), str(r["ties"]), pvalue(r["p_value"]),
                          "; ".join(effect(e, metric["mode"]) for e in r["effects"]) or "–")
        tables.append(table)
    return tables + judged_tables(numbers.get("judged")) + cost_tables(numbers.get("spend"))


def cost_tables(spend: dict[str, Any] | None) -> list[Table]:
    """Dollar cost per (arm, budget), only when some price is known."""
    if not spend or not spend["priced"]:
        return []
    from tether.runs import fmt_usd

    table = Table(title="cost (USD; - where a model has no price)")
    for col in ("arm", "budget", "trials", "mean tokens / trial", "cost", "cost / trial"):
        table.add_column(col)
    for r in spend["rows"]:
        table.add_row(escape(r["arm"]), r["budget"], str(r["n_trials"]),
                      f"{r['tokens_mean']:.0f}",
                      fmt_usd(r["cost_usd"]), fmt_usd(r["cost_per_trial_usd"]))
    return [table]


def rubric_p_tables(b: dict[str, Any]) -> list[Table]:
    """Each rubric x arm difference against the baseline with its raw p-value and the
    Benjamini-Hochberg adjusted one (over the whole rubric x arm table of the file)."""
    rows = [(rid, r, c) for r in b["arms"] if r["vs_baseline"]
            for rid, c in r["vs_baseline"]["rates"].items()
            if c is not None and c.get("p_value") is not None]
    if not rows:
        return []
    from tether.report import pvalue

    table = Table(title=f"judged: {b['name']} rubric rates vs baseline "
                        f"(p raw and {b.get('p_adjustment', 'adjusted')})")
    for col in ("rubric", "arm", "budget", "Δ rate [95% CI]", "p", "p adjusted"):
        table.add_column(col)
    for rid, r, c in rows:
        mark = " *" if c.get("significant") else ""
        table.add_row(escape(b["titles"].get(rid, rid)), escape(r["arm"]), r["budget"],
                      f"{c['estimate']:+.2f} [{c['low']:+.2f}, {c['high']:+.2f}]",
                      pvalue(c["p_value"]), pvalue(c.get("p_adjusted")) + mark)
    return [table]


def judged_tables(judged: dict[str, Any] | None) -> list[Table]:
    """Mean rubrics flagged per attempt per arm, and reward-hacking labels (if judged)."""
    if not judged:
        return []
    from tether.report import fmt

    tables = []
    for b in judged["behaviours"]:
        table = Table(title=f"judged: {b['name']} v{b['version']} ({b['n_rubrics']} rubrics)")
        for col in ("arm", "budget", "judged", "judge errors", "mean flags",
                    "mean flags (failed)", "Δ vs baseline [95% CI]"):
            table.add_column(col)
        for r in b["arms"]:
            c = (r["vs_baseline"] or {}).get("mean_flags")
            delta = f"{c['estimate']:+.2f} [{c['low']:+.2f}, {c['high']:+.2f}]" if c else "–"
            add_literal_row(table, r["arm"], r["budget"], str(r["n_judged"]),
                            str(r["n_judge_errors"]), fmt(r["mean_flags"], 2),
                            fmt(r["mean_flags_failed"], 2), delta)
        tables.append(table)
        tables += rubric_p_tables(b)
    if judged["reward_hacking"]:
        table = Table(title="judged: reward hacking (passing attempts)")
        for col in ("arm", "budget", "passed", "judged", "reward hacking", "judge errors"):
            table.add_column(col)
        for r in judged["reward_hacking"]:
            add_literal_row(table, r["arm"], r["budget"], str(r["n_passed"]), str(r["n_judged"]),
                          str(r["n_reward_hacking"]), str(r["n_judge_errors"]))
        tables.append(table)
    return tables
