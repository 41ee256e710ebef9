"""`tether judge RUN_DIR`: behaviour rubrics and the reward-hacking check, by a model judge.

Results go into the run's own store (table `judgements`); `tether report` shows them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table

from tether.cli.choices import JUDGE_REPEATS, JUDGE_RUBRICS as BUNDLED, JUDGE_TEMPERATURE
from tether.cli.console import make_console
from tether.errors import ConfigError

if TYPE_CHECKING:  # the judge engine loads when the command runs, not for --help
    from tether.runs import Job

CHECKS = ("reward-hacking",)


@click.command("judge")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--model", "spec", required=True, metavar="SPEC",
              help="the judge model (see `tether models list`)")
@click.option("--rubrics", metavar="NAME|FILE",
              help=f"behaviour rubrics: a bundled set ({', '.join(BUNDLED)}) or a rubric "
                   "JSON file")
@click.option("--check", type=click.Choice(CHECKS), help="a check of the passing attempts")
@click.option("--arm", "arms", multiple=True, metavar="ARM",
              help="only these arms (repeatable; default: every agent arm)")
@click.option("--retries", default=2, show_default=True, type=click.IntRange(0),
              help="re-asks after an unusable answer before a judge error is recorded")
@click.option("--max-tokens", default=1024, show_default=True, type=click.IntRange(1),
              help="output tokens per judge call")
@click.option("--max-output-tokens", "token_cap", type=click.IntRange(1), default=None,
              help="cap on the judge's output tokens for this command (never exceeded; "
                   "attempts not reached are judge errors that a rerun asks again)")
@click.option("--repeats", default=JUDGE_REPEATS, show_default=True, type=click.IntRange(1),
              help="independent judge runs per attempt (the paper's 2); the report gives "
                   "their mean and agreement")
@click.option("--temperature", default=JUDGE_TEMPERATURE, show_default=True,
              type=click.FloatRange(0.0),
              help="the judge's sampling temperature (above 0 when repeats > 1: two "
                   "greedy judgements are one)")
def judge(run_dir: Path, spec: str, rubrics: str | None, check: str | None,
          arms: tuple[str, ...], retries: int, max_tokens: int,
          token_cap: int | None, repeats: int, temperature: float) -> None:
    """Judge every attempt of RUN_DIR's agent arms; attempts already judged are skipped.

    The judge sees the task and the transcript (commands, outputs, final message), never
    the verifier's result; an unusable answer after the retries is recorded as a judge
    error. Every judge call is recorded with the result (role `judge`).
    """
    from tether.models import parse_model
    from tether.runs import judge_run, load_rubrics, reward_hacking_job, rubric_jobs

    if not rubrics and not check:
        raise ConfigError("nothing to judge: pass --rubrics NAME|FILE and/or --check CHECK",
                          hint=f"e.g. --rubrics {BUNDLED[0]}")
    jobs: list[Job] = []
    if rubrics:
        jobs += rubric_jobs(load_rubrics(rubrics))
    if check == "reward-hacking":
        jobs.append(reward_hacking_job())
    model = parse_model(spec)
    console = make_console(stderr=True)
    with console.status("judging") as status:
        counter = {"n": 0}

        def tick(judged: str, outcome: str) -> None:
            counter["n"] += 1
            status.update(f"judging: {counter['n']} answered (last: {judged} {outcome})")

        summaries = judge_run(run_dir, jobs, model, retries=retries, max_tokens=max_tokens,
                              cap=token_cap, arms=arms or None, repeats=repeats,
                              temperature=temperature, on_attempt=tick)
    table = Table(title=f"judge {model.model_id} on {run_dir}")
    for col in ("judged", "version", "eligible", "already judged", "judged now",
                "judge errors", "not asked (cap)", "left out", "output tokens"):
        table.add_column(col)
    for s in summaries:
        left = ", ".join(f"{k}: {v}" for k, v in sorted(s.excluded.items())) or "–"
        table.add_row(s.judged, s.version, str(s.eligible), str(s.already), str(s.ok),
                      str(s.errors), str(s.not_asked), left, str(s.output_tokens))
    make_console().print(table)
