"""`tether compile`: a teacher compiles a harness for a frozen student.

    tether compile --setting docs --teacher SPEC --student SPEC --out DIR
                   [--probe 50 --validation 50 --test 200 --rounds 3 --protocol A|B|AB
                    --restarts 2 --builds 1 --seed 0 --interventions
                    --comparators h0,oneshot,human_recipe,student_routed,cot_vote
                                  [,plain_vote,gepa]
                    --teacher-temperature 0.7 --teacher-max-tokens 2048
                    --teacher-token-budget N --student-token-budget N
                    --gepa-variant prompt|content|structured] [--json]
    tether compile CONFIG.toml [--out DIR] [--json]    # the same fields in a file
    tether compile --resume DIR [--json]               # after a kill: continue

Exit 0 when the compile finished, 1 when every teacher call failed (the reason is
printed; the build still holds the bare floor), 2 for a usage error (a bad config or
spec, an unknown setting, an output directory that already holds a compile). `--json`
prints the result object (tether.systems.compile.compiler.build); otherwise a progress
bar, then a summary.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tether.cli import COMPARATORS, esc, make_console, start_up
from tether.errors import ConfigError, TetherError

if TYPE_CHECKING:  # the compiler loads when the command runs, not for --help
    from tether.systems.compile import Compiler

_FIELDS = ("setting", "teacher", "student", "probe", "validation", "test", "rounds",
           "protocol", "restarts", "builds", "seed", "out", "interventions", "comparators",
           "teacher_temperature", "teacher_max_tokens", "metric", "teacher_token_budget",
           "student_token_budget", "gepa_variant")


@click.command("compile")
@click.argument("config", required=False, type=click.Path(path_type=Path))
@click.option("--setting", help="harness setting: docs, shapes, flags, slides, a plugin's, "
                                 "jsonl:PATH, csv:PATH, hf:PATH, parquet:PATH "
                                 "or module:attr")
@click.option("--metric", help="a data setting's metric: exact, anls, f1, numeric, choice, "
                                "choice_named or module:function [exact]")
@click.option("--teacher", help="teacher model spec (any tether spec)")
@click.option("--student", help="frozen student model spec")
@click.option("--probe", type=int, help="probe split size [50]")
@click.option("--validation", type=int, help="validation split size [50]")
@click.option("--test", type=int, help="test split size [200]")
@click.option("--rounds", type=int, help="reflection rounds after round 0 [3]")
@click.option("--protocol", type=click.Choice(["A", "B", "AB"]),
              help="reflection protocol: A, B, or AB (both from one H0, an A and a B build "
                   "per replicate) [A]")
@click.option("--restarts", type=int, help="extra round-0 proposals when H0 is unusable [2]")
@click.option("--builds", type=int, help="independent builds, reported as their mean [1]")
@click.option("--seed", type=int, help="split seed, base of the teacher seeds [0]")
@click.option("--out", help="the run directory the compile writes")
@click.option("--interventions", is_flag=True, default=None,
              help="also score the selection's five decision interventions on test")
@click.option("--comparators",
              help="test arms beside bare and the selection, comma-separated, or none "
                   f"[{','.join(COMPARATORS)}]; also plain_vote (majority vote without CoT) "
                   "and gepa (needs the gepa extra)")
@click.option("--gepa-variant", type=click.Choice(["prompt", "content", "structured"]),
              help="what the gepa comparator searches: prompt (the templates), content "
                   "(+ resources), structured (+ decode, answer mode, parse hook) [prompt]")
@click.option("--teacher-temperature", type=float, help="the teacher's temperature [0.7]")
@click.option("--teacher-max-tokens", type=int, help="the teacher's max tokens per reply [2048]")
@click.option("--teacher-token-budget", type=int,
              help="input + output tokens each build's teacher may spend; a call that does "
                   "not fit is refused and the rounds stop there [unlimited]")
@click.option("--student-token-budget", type=int,
              help="generated tokens the student may spend over the whole compile; an item "
                   "whose call does not fit is a budget stop, never scored [unlimited]")
@click.option("--resume", "resume", type=click.Path(path_type=Path),
              help="continue the compile in this directory")
@click.option("--json", "as_json", is_flag=True, help="print the result as one JSON object")
def compile_(config: Path | None, resume: Path | None, as_json: bool, **flags: Any) -> None:
    """Compile a harness: teacher rounds, the strict validation gate, then the test split."""
    given = {k: flags[k] for k in _FIELDS if flags.get(k) is not None}
    _start_page_helper(config, given)  # before the compiler loads (its docstring says why)

    from tether.systems.compile.compiler.gate import small_gate_warning
    from tether.systems.compile.compiler.summary import teacher_failure

    console = make_console(stderr=True)
    with _progress(console, enabled=not as_json) as report:
        with start_up():  # the compile's start: its settings, models and store
            compiler = _compiler(config, resume, given, report)
        # said before the rounds start (and recorded in the result's warnings)
        warning = small_gate_warning(compiler.config.validation)
        if warning is not None:
            console.print(f"[yellow]warning[/]: {esc(warning)}", highlight=False)
        result = compiler.run()
    if as_json:
        click.echo(json.dumps(result, sort_keys=True))
    else:
        _summary(make_console(), result, compiler.store.root,
                 asked=list(compiler.config.comparators))
        sizes = compiler.config.sizes
        make_console().print("split sizes: " + ", ".join(f"{k} {v}" for k, v in sizes.items()),
                             highlight=False)
    failed = teacher_failure(result)
    if failed is not None:
        console.print(f"[red]every teacher call failed[/]: {failed}", highlight=False)
        sys.exit(1)


def _start_page_helper(config: Path | None, given: dict[str, Any]) -> None:
    """Start the page helper (settings/page_worker.py) before the compiler loads, when the
    flags or the config file say its student will be shown pages drawn there (a docs
    compile at a remote student that takes images). The helper's own start (an
    interpreter, numpy and PIL: about 0.25 s of a core) then runs beside the compiler's
    imports instead of after them, and the first calls do not wait for their pages.
    A file this cannot read is left to the compile's loading, which reports it; a resumed
    compile starts the helper when it asks for its first page."""
    from tether.systems.compile.settings import start_page_helper
    from tether.systems.compile.student import shown_images

    fields = dict(given)
    if config is not None:
        from tether.runs import read_config  # the loader's own reader (FIFOs refused)

        try:
            data = read_config(config, what="a compile config file (TOML)")
        except TetherError:
            return
        table = data.get("compile", data) if isinstance(data, dict) else None
        if not isinstance(table, dict):
            return
        fields = {**table, **given}
    setting, student = fields.get("setting"), fields.get("student")
    modality = fields.get("modality", "auto")
    if (isinstance(setting, str) and isinstance(student, str) and isinstance(modality, str)
            and shown_images(None, student, modality)):
        start_page_helper(setting)


def _compiler(config: Path | None, resume: Path | None, given: dict[str, Any],
              report: _progress) -> Compiler:
    from tether.systems.compile import Compiler, config_from_fields, load_compile_config

    if resume is not None:
        if config is not None or given:
            raise ConfigError("--resume takes no config or other fields",
                              hint="the config the compile recorded is used as it was")
        return Compiler.resume(resume, progress=report)
    if config is not None:
        return Compiler(load_compile_config(config, **given), progress=report)
    missing = [k for k in ("setting", "teacher", "student", "out") if k not in given]
    if missing:
        raise ConfigError(f"missing --{', --'.join(missing)}",
                          hint="tether compile --setting S --teacher SPEC "
                               "--student SPEC --out DIR, or tether compile FILE.toml")
    return Compiler(config_from_fields(**given), progress=report)


class _progress:
    """A rich progress bar fed by the scorer's (description, done, total) calls."""

    def __init__(self, console: Any, *, enabled: bool) -> None:
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                            MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                            transient=True, disable=not enabled)
        self.task: Any = None
        self.desc = ""

    def __enter__(self) -> _progress:
        self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        # passes __exit__'s own three arguments through unchanged
        self.bar.__exit__(*exc)  # type: ignore[arg-type]

    def __call__(self, desc: str, done: int, total: int) -> None:
        if self.task is None or desc != self.desc:
            if self.task is not None:
                self.bar.remove_task(self.task)
            self.task, self.desc = self.bar.add_task(desc, total=total), desc
        self.bar.update(self.task, completed=done)


def _fmt(value: Any) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _summary(console: Any, result: dict[str, Any], root: Path,
             asked: list[str] | None = None) -> None:
    """The rounds and the test table; `asked`: the comparators the compile scores (the
    table leaves the others out and names them once, not as rows of dashes)."""
    from tether.systems.compile import ARMS

    builds = result.get("builds") or [result]
    for k, build in enumerate(builds):
        protocol = f" (protocol {build['protocol']})" if build.get("shared_h0") else ""
        table = Table(title=f"build {k}{protocol}: rounds", title_justify="left")
        for col in ("round", "hash", "admissible", "probe", "validation", "decision"):
            table.add_column(col)
        for r in build["rounds"]:
            table.add_row(f"{r['round']}" + (f".{r['restart']}" if r["restart"] else ""),
                          (r["hash"] or "-")[:12], str(r["admissible"]), _fmt(r["probe"]),
                          _fmt(r["validation"]), r["decision"])
        console.print(table)
        chosen = "bare (nothing beat the bare student)" if build["selected_is_bare"] \
            else build["selected_hash"][:12]
        if build["selected_is_bare"] and not build["rounds"] and build.get("student_stopped"):
            chosen = "bare (the student's budget stopped before the bare floor was scored)"
        console.print(f"selected: {chosen}; stopped: {build['stopped']}", highlight=False)
        shared = build.get("shared_h0") or {}
        if shared.get("read_by") == str(k):  # the shared-H0 mode (compiler/plan.py)
            console.print(f"H0 shared with build {shared['written_by']} (round 0 read from "
                          "it, not asked again)", highlight=False)
        if build.get("student_stopped"):
            console.print(f"items the student's budget left unscored (not failures): "
                          f"{build['student_stopped']}", highlight=False)
    scores = Table(title="test split (mean over builds)" if len(builds) > 1 else "test split",
                   title_justify="left")
    for col in ("arm", "validation", "test", "student tokens/item"):
        scores.add_column(col)
    kept = [a for a in ARMS if asked is None or a in ("bare", "selected", *asked)]
    for arm in kept:
        row = result.get(arm) or {}
        tokens = row.get("tokens_per_item")
        scores.add_row(arm, _fmt(row.get("validation")), _fmt(row.get("test")),
                       "-" if tokens is None else f"{tokens:.1f}")
    constant = result.get("constant")
    if constant:  # constant_answer.py: no model, so no validation score and no tokens
        scores.add_row(f"constant ({esc(repr(constant['answer']))})", "-",
                       _fmt(constant["test"]), "0.0")
    console.print(scores)
    if len(kept) < len(ARMS):
        console.print("not asked (--comparators): " + ", ".join(a for a in ARMS if a not in kept),
                      highlight=False, soft_wrap=True)
    failed = (result.get("bare") or {}).get("infra_errors") or {}
    if result.get("bare", {}).get("test") is None and (failed.get("test") or 0) > 0:
        # nothing scored is unknown, not 0: say why, since it is almost always the endpoint
        console.print(f"the bare student was never scored on test: {failed['test']} infra "
                      "errors (endpoint or sandbox failures); is the student endpoint "
                      "reachable? (trials.jsonl has each error)", highlight=False)
    for protocol, arms in (result.get("by_protocol") or {}).items():
        console.print(f"protocol {protocol} (mean over its builds): selected test "
                      f"{_fmt(arms['selected'].get('test'))}, H0 test "
                      f"{_fmt(arms['h0'].get('test'))}", highlight=False)
    for k, build in enumerate(builds):
        gepa = build.get("gepa") or {}
        if gepa.get("stopped") is not None:
            console.print(f"build {k} gepa ({gepa['variant']} variant): "
                          f"{gepa['teacher_tokens']} of {gepa['teacher_budget']} teacher "
                          f"tokens, {gepa['metric_calls']} of {gepa['metric_call_budget']} "
                          f"metric calls; stopped: {esc(gepa['stopped'])}", highlight=False)
    if result.get("student_tokens") is not None:
        cap = result.get("student_token_budget")
        console.print(f"student tokens: {result['student_tokens']}"
                      + (f" of a budget of {cap}" if cap is not None else ""))
    refused = sum(b.get("teacher_refusals") or 0 for b in builds)
    cost = result.get("teacher_cost")
    console.print(f"teacher tokens: {result['teacher_tokens']}"
                  + f", teacher cost: {'-' if cost is None else f'${cost:.4f}'}"
                  + (f" ({refused} calls refused by the budget)" if refused else "")
                  + f"; run directory: {root}")
