"""`tether run` and `tether rescore`.

Exit codes: 0 the run completed (tasks may have failed: measuring that is the point),
1 some trial ended in `error` (infrastructure or harness failure), 2 usage or
config error, 130 interrupted by Ctrl-C (the run directory stays resumable).
"""

from __future__ import annotations

import json
import signal
import sqlite3
import threading
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tether.cli.choices import CACHE_MODES
from tether.cli.console import make_console
from tether.cli.startup import start_up
from tether.errors import ConfigError, TetherError

if TYPE_CHECKING:  # the runner loads when a command runs, not for --help
    from tether.core import TrialRecord
    from tether.models import PriceBook
    from tether.runs import PreparedRun, RunRequest

#: tables and paths are read in logs and pipes too: never wrapped at 80 columns there
console = make_console()
err_console = make_console(stderr=True)

EXIT_INTERRUPTED = 130


class _StopOnSigint:
    """First Ctrl-C asks the run to stop (in-flight trials abandoned); a second one forces."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self._old: Any = None

    def _handle(self, signum: int, frame: object) -> None:
        if self.stop.is_set():
            raise KeyboardInterrupt
        self.stop.set()
        err_console.print("[yellow]stopping:[/] trials in flight are abandoned "
                          "(Ctrl-C again to force)", highlight=False)

    def __enter__(self) -> threading.Event:
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handle)
        return self.stop

    def __exit__(self, *exc: object) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


def _book(run: PreparedRun) -> PriceBook:
    from tether.runs import META_KEY as COST_META, run_book

    return run_book(run.experiment.resolved(), None, run.store.meta(COST_META))


#: the errors `error_lines` names at most (the most frequent; the rest are counted)
SHOWN_ERRORS = 3


def error_lines(records: list[TrialRecord]) -> list[str]:
    """What the run's error trials ended with, one line per distinct error, the most
    frequent first: a user whose endpoint refused every call sees why, not a count.
    Trials not started because their endpoint was down are said by the breaker's line."""
    import tether.models as models
    from tether.runs import SKIPPED_KIND

    def hint_of(kind: str) -> str | None:
        # what to do, where the kind is a model error with advice of its own (a refused
        # certificate, a rejected key): its message alone does not say it
        error = getattr(models, kind, None)
        if isinstance(error, type) and issubclass(error, TetherError):
            return error.hint
        return None

    counts = Counter((r.error_kind or "error", (r.error_message or "").strip())
                     for r in records if r.status == "error" and r.error_kind != SKIPPED_KIND)
    lines = []
    for (kind, message), n in counts.most_common(SHOWN_ERRORS):
        head = message.splitlines()[0] if message else "(no message)"
        lines.append(f"  {n} x {kind}: {head[:300]}")
        if hint := hint_of(kind):
            lines.append(f"    hint: {hint}")
    if len(counts) > SHOWN_ERRORS:
        rest = sum(n for _, n in counts.most_common()[SHOWN_ERRORS:])
        lines.append(f"  and {rest} more ({len(counts) - SHOWN_ERRORS} other errors): "
                     "tether report shows every trial")
    return lines


def _summary(run: PreparedRun, records: list, interrupted: bool, committed_now: int,
             code: int, endpoints_down: list[str]) -> dict[str, Any]:
    from tether.runs import arm_rows, by_status

    return {
        "run_dir": str(run.store.dir), "status": "interrupted" if interrupted else "completed",
        "exit_code": code, "planned": len(run.planned), "committed": len(records),
        "ran_now": committed_now, "skipped": len(run.planned) - len(run.todo),
        "restored_from_log": run.restored, "endpoints_down": endpoints_down,
        "by_status": by_status(records),
        "arms": arm_rows(records, run.experiment.resolved(), _book(run)),
    }


@click.command("run")
@click.argument("config", required=False)
@click.option("--out", "out", metavar="RUN_DIR", help="run directory to create "
              "(default: runs/CONFIG-STEM-TIMESTAMP)")
@click.option("--resume", metavar="RUN_DIR", help="continue a run: only missing trials run")
@click.option("--retry-errors", is_flag=True, help="with --resume: rerun trials that errored")
@click.option("--concurrency", type=click.IntRange(1), help="trials in flight")
@click.option("--executor", type=click.Choice(["local", "ray"]), help="where trials run")
@click.option("--ray-address", help="join this Ray cluster (default: start a local one)")
@click.option("--cache", "cache", type=click.Choice(CACHE_MODES), help="response cache mode")
@click.option("--cache-file", type=click.Path(dir_okay=False),
              help="response cache file (default: RUN_DIR/cache.sqlite)")
@click.option("--limit", type=click.IntRange(1), help="first N tasks of each suite")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="override a config value (dotted path, e.g. models.proposer=SPEC, "
                   "strategies.bon.params.n=8); repeatable")
@click.option("--prices", type=click.Path(dir_okay=False), metavar="FILE",
              help="price table (TOML/JSON: model -> price_in, price_out per million "
                   "tokens) for dollar costs")
@click.option("--plan", "plan_only", is_flag=True,
              help="print trial counts, worst-case tokens, cost and duration; call no model")
@click.option("--tokens-per-s", type=click.FloatRange(min=0, min_open=True),
              help="with --plan: every model's speed (output tokens per second of call "
                   "time) to estimate the duration with")
@click.option("--measure-speed", is_flag=True,
              help="with --plan: time one short call of each model now for the duration "
                   "(costs that call; default: the speed its calls recorded under runs/ show)")
@click.option("--json", "as_json", is_flag=True, help="print a JSON summary")
def run(config: str | None, out: str | None, resume: str | None, retry_errors: bool,
        concurrency: int | None, executor: str | None, ray_address: str | None,
        cache: str | None, cache_file: str | None, limit: int | None, sets: tuple[str, ...],
        prices: str | None, plan_only: bool, tokens_per_s: float | None,
        measure_speed: bool, as_json: bool) -> None:
    """Run an experiment CONFIG (TOML, or a run's config.resolved.json) into a run directory.

    Each trial is committed as it ends; Ctrl-C (or a crash) leaves a run that
    `tether run --resume RUN_DIR` completes without repeating finished trials.

    \b
    Exit codes: 0 completed (tasks may fail: that is what a run measures),
    1 some trial ended in error (infrastructure, never a score), 2 usage or
    config error, 130 interrupted (resumable).
    """
    if (tokens_per_s or measure_speed) and not plan_only:
        raise ConfigError("--tokens-per-s and --measure-speed apply with --plan only",
                          hint="add --plan, or drop them")
    if retry_errors and not resume:
        raise ConfigError("--retry-errors only applies with --resume RUN_DIR")
    if out and resume:
        raise ConfigError("--out and --resume both name a run directory: give one",
                          hint="--resume RUN_DIR continues that run in place")
    with start_up():  # the imports and the preparation (tether.cli.startup)
        from tether.runs import RunRequest

        req = RunRequest(config=config, out=out, resume=resume, retry_errors=retry_errors,
                         limit=limit, sets=sets, prices=prices, overrides={
                             "concurrency": concurrency, "executor": executor,
                             "ray_address": ray_address, "cache": cache,
                             "cache_file": cache_file})
        if plan_only:
            from tether.cli.run_plan import show_plan

            show_plan(req, tokens_per_s, as_json, measure_speed)
            return
        prepared = _prepare(req)
    from tether.runs import DB_NAME, LOG_NAME, RunProgress, arm_table, execute

    skipped = len(prepared.planned) - len(prepared.todo)
    if prepared.restored:
        err_console.print(f"[yellow]restored[/] {prepared.restored} finished trial(s) from "
                          f"{LOG_NAME} into {DB_NAME} (the store had lost them)",
                          highlight=False)
    if prepared.unreadable_log_lines:
        err_console.print(f"[yellow]skipped[/] {prepared.unreadable_log_lines} unreadable "
                          f"line(s) of {LOG_NAME} (cut short by a crash)", highlight=False)
    if not as_json:
        what = f"resuming {prepared.store.dir}" if prepared.resumed else f"run {prepared.store.dir}"
        err_console.print(f"[bold]{what}[/]: {len(prepared.planned)} trials, "
                          f"{len(prepared.todo)} to run"
                          + (f", {skipped} already done" if skipped else "")
                          + f" ({prepared.options.executor}, {prepared.options.concurrency} "
                          "in flight)", highlight=False)
    progress = RunProgress(err_console, len(prepared.planned), enabled=not as_json)
    if skipped:
        finished = ({p.spec.trial_id for p in prepared.planned}
                    - {p.spec.trial_id for p in prepared.todo})
        progress.absorb([r for r in prepared.store.trials() if r.trial_id in finished])
    def endpoint_down(endpoint: str, failures: int) -> None:
        err_console.print(f"[red]endpoint down[/]: {endpoint} could not be reached by "
                          f"{failures} trials in a row; its remaining trials are not started "
                          "(recorded as errors: rerun them with tether run --resume "
                          f"{prepared.store.dir} --retry-errors)", highlight=False)

    try:
        with _StopOnSigint() as stop, progress:
            result = execute(prepared, stop=stop, on_commit=progress.update,
                             on_endpoint_down=endpoint_down)
    except KeyboardInterrupt:
        err_console.print(f"[red]forced stop[/]: committed trials are kept; resume with "
                          f"tether run --resume {prepared.store.dir}", highlight=False)
        raise SystemExit(EXIT_INTERRUPTED) from None
    except (OSError, sqlite3.Error) as exc:
        raise TetherError(f"run failed writing {prepared.store.dir}: {exc}") from None
    except TetherError as exc:  # e.g. the Ray cluster could not be reached
        keep = f"the run directory is kept: tether run --resume {prepared.store.dir}"
        raise TetherError(str(exc), hint=f"{exc.hint}; {keep}" if exc.hint else keep) from None
    code = EXIT_INTERRUPTED if result.interrupted else (1 if result.errored else 0)
    summary = _summary(prepared, result.records, result.interrupted, result.committed_now, code,
                       result.endpoints_down)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        title = f"{prepared.experiment.name or Path(prepared.store.dir).name}: " \
                f"{len(result.records)}/{len(prepared.planned)} trials"
        console.print(arm_table(summary["arms"], title))
    # what to do next goes to stderr, so a --json consumer still reads clean stdout
    if result.interrupted:
        err_console.print(f"[yellow]interrupted[/]: {len(result.records)} of "
                          f"{len(prepared.planned)} trials committed; resume with "
                          f"tether run --resume {prepared.store.dir}", highlight=False)
    if result.errored:
        err_console.print(f"[red]{result.errored} trial(s) ended in error[/] "
                          "(infrastructure, not scores); rerun them with "
                          f"tether run --resume {prepared.store.dir} --retry-errors",
                          highlight=False)
        for line in error_lines(result.records):
            err_console.print(line, highlight=False, markup=False)
    if not as_json:
        console.print(f"run directory: {prepared.store.dir}\n"
                      f"report: tether report {prepared.store.dir}", highlight=False)
    prepared.store.close()
    raise SystemExit(code)


def _prepare(req: RunRequest) -> PreparedRun:
    from tether.runs import DB_NAME, damaged, prepare

    try:
        return prepare(req)
    except sqlite3.DatabaseError as exc:  # a page SQLite cannot read, found past the opening
        if not req.resume:
            raise TetherError(f"cannot prepare the run: {exc}") from None
        raise damaged(Path(req.resume) / DB_NAME, exc) from None
    except OSError as exc:
        raise TetherError(f"cannot prepare the run: {exc}") from None
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted[/] before any trial ran", highlight=False)
        raise SystemExit(EXIT_INTERRUPTED) from None


@click.command("rescore")
@click.argument("run_dir")
@click.option("--metric", "metric", required=True, metavar="INSTRUMENT_SPEC",
              help="instrument spec (name;key=value...) to score each delivered artifact")
@click.option("--out", "out", metavar="NEW_RUN_DIR",
              help="where to write the rescored run (default: RUN_DIR-rescored-NAME)")
@click.option("--sandbox", type=click.Choice(["bwrap", "subprocess"]),
              help="sandbox backend for the instrument (default: the run's)")
@click.option("--concurrency", type=click.IntRange(1), default=4, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="print a JSON summary")
def rescore(run_dir: str, metric: str, out: str | None, sandbox: str | None,
            concurrency: int, as_json: bool) -> None:
    """Score the artifacts of RUN_DIR with another instrument (no model call) into a new run.

    The new run keeps the trial ids, so `tether report RUN_DIR --compare NEW_RUN_DIR`
    sets the two scores side by side. Exit codes: 0 every artifact was scored,
    1 the instrument failed on some (recorded as errors, never as scores), 2 usage error.
    """
    from tether.instruments import InstrumentEnv, check_instrument, parse_spec
    from tether.runs import DB_NAME, RunStore, arm_rows, arm_table, by_status, damaged, rescore_run

    src_dir = Path(run_dir)
    if not (src_dir / DB_NAME).is_file():
        raise ConfigError(f"{src_dir} is not a run directory (no {DB_NAME})",
                          hint="pass a directory written by `tether run`")
    check_instrument(metric)  # an unknown instrument is a usage error, before anything is written
    name = parse_spec(metric)[0]
    dst_dir = Path(out) if out else src_dir.with_name(f"{src_dir.name}-rescored-{name}")
    if (dst_dir / DB_NAME).is_file():
        raise ConfigError(f"{dst_dir} already holds a run", hint="choose another --out")
    src = RunStore.open(src_dir, readonly=True)
    try:
        backend = sandbox or (src.config().get("run") or {}).get("sandbox", "bwrap")
        dst = RunStore(dst_dir, create=True)
        records = rescore_run(src, dst, metric, env=InstrumentEnv(sandbox=backend),
                              concurrency=concurrency)
    except sqlite3.DatabaseError as exc:  # the new store is fresh: the source's pages are bad
        src.close()
        raise damaged(src_dir / DB_NAME, exc) from None
    except OSError as exc:
        src.close()
        raise TetherError(f"rescoring failed: {exc}") from None
    failed = sum(1 for r in records if r.status == "error"
                 and r.error_kind == "instrument" and r.metric is not None)
    code = 1 if failed else 0
    rows = arm_rows(records, src.config())
    if as_json:
        click.echo(json.dumps({"run_dir": str(dst_dir), "rescored_from": str(src_dir),
                               "metric": metric, "trials": len(records),
                               "instrument_errors": failed, "by_status": by_status(records),
                               "arms": rows, "exit_code": code}, indent=2))
    else:
        console.print(arm_table(rows, f"{src_dir.name} rescored with {metric}"))
        if failed:
            err_console.print(f"[red]{failed} artifact(s) could not be scored[/] by {metric} "
                              "(instrument errors, not scores)", highlight=False)
        console.print(f"run directory: {dst_dir}\n"
                      f"compare: tether report {src_dir} --compare {dst_dir}", highlight=False)
    src.close()
    dst.close()
    raise SystemExit(code)
