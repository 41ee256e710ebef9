"""`tether harness ...`: the compiled-harness artifact from the shell.

    tether harness hash HARNESS.json                    # its sha256 identity
    tether harness check HARNESS.json --setting docs [--json]
    tether harness run HARNESS.json --setting docs --split test --student SPEC [--limit N]
    tether harness apply HARNESS --data SPEC --student SPEC --out DIR [--json]
    tether harness apply --resume DIR [--json]

`check` exits 0 when the harness is admissible, 1 when not (one line per violation),
2 when the file cannot be read as JSON or the setting is unknown. `run` deploys a
harness (no teacher) into a normal run directory: exit 0 done, 1 inadmissible or some
trial ended in error, 2 usage error. `apply` deploys a harness file or a compile's
selected harness on every row of any data file with the fields it uses
(systems/compile/compiler/deploy.py), with the same exit codes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tether.errors import ConfigError

if TYPE_CHECKING:  # tether.systems.compile loads in the commands, not for --help
    from tether.core import Task


def _setting_option(name: str | None) -> str | None:
    """`--setting` as a build records it: a data setting's path made absolute (a harness
    compiled on `jsonl:cities.jsonl` names `jsonl:/abs/cities.jsonl`)."""
    from tether.systems.compile.setting import DATA_FORMATS
    from tether.systems.compile.settings.data import canonical_spec

    if name and name.partition(":")[0] in DATA_FORMATS:
        return canonical_spec(name)
    return name


@click.group()
def harness() -> None:
    """Compiled harnesses: identity and admissibility."""


@harness.command("hash")
@click.argument("path", type=click.Path(path_type=Path))
def hash_(path: Path) -> None:
    """Print the harness's identity: sha256 of its canonical JSON."""
    from tether.systems.compile import load_harness

    click.echo(load_harness(path).hash)


@harness.command("check")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--setting", "setting_name", help="setting to check on (default: the harness's)")
@click.option("--seed", type=int, default=0, show_default=True, help="split seed")
@click.option("--json", "as_json", is_flag=True, help="one JSON object on stdout")
def check(path: Path, setting_name: str | None, seed: int, as_json: bool) -> None:
    """Check admissibility: schema, hook whitelist, hard-coded answers, smoke, determinism."""
    from tether.systems.compile import check_harness, get_setting, read_harness_document

    document = read_harness_document(path)
    setting_name = _setting_option(setting_name)
    if setting_name is None:
        named = document.get("setting") if isinstance(document, dict) else None
        setting_name = named if isinstance(named, str) else ""
    setting = get_setting(setting_name)
    report = check_harness(document, setting, seed=seed)
    if as_json:
        click.echo(json.dumps(report.to_json()))
    elif report.admissible:
        click.echo(f"admissible on {setting.name}: {report.hash}")
    else:
        count = len(report.violations)
        click.echo(f"{path}: not admissible on {setting.name}: {count} problem"
                   f"{'s' if count != 1 else ''}")
        for violation in report.violations:
            click.echo(f"  [{violation.check}] {violation.detail}")
    sys.exit(0 if report.admissible else 1)


def harness_experiment(harness: str, setting: str, split: str, student: str, *,
                       intervention: str | None = None, concurrency: int = 1,
                       sandbox: str = "bwrap") -> dict[str, Any]:
    """The experiment config of a deployment: one arm on one split of one setting.

    `harness` is a file (its document goes into the config inline, so the run holds the
    very harness it scored), or `bare` / `recipe` for those baselines."""
    from tether.systems.compile import load_harness, suite_name

    if harness in ("bare", "recipe"):
        arm: dict[str, Any] = {"name": "bare" if harness == "bare" else "human_recipe"}
        params: dict[str, Any] = {}
    else:
        loaded = load_harness(harness)
        arm = {"name": "compiled_harness", "label": f"harness-{loaded.hash[:12]}"}
        params = {"harness": loaded.document()}
    if intervention:
        params["intervention"] = intervention
        arm["label"] = f"{arm.get('label', arm['name'])}+{intervention}"
    arm["params"] = params
    return {"name": f"harness-{setting}-{split}", "suites": [suite_name(setting, split)],
            "strategies": [arm], "models": {"proposer": student, "student": student},
            "run": {"concurrency": concurrency, "sandbox": sandbox}}


def load_harness_suite(spec: str) -> list[Task]:
    """Suite loader of `tether harness run`: a harness-SETTING[:SPLIT] spec is built by the
    one task builder (the registered suites use it too, so `--resume` finds the same
    tasks); anything else comes from the registry."""
    from tether.systems.compile import parse_suite_spec, setting_tasks

    if spec.startswith(("harness-", "harness:")):
        setting, split = parse_suite_spec(spec)
        return setting_tasks(setting, split)
    from tether.suites import load_suite

    return load_suite(spec)


def _label(setting: str) -> str:
    """A setting as one path component: a data setting's spec holds a path (and a
    metric), so `jsonl:/data/cities.jsonl;metric=f1` (or the old `?metric=f1`) is
    `jsonl-cities.jsonl`."""
    kind, sep, rest = setting.partition(":")
    if not sep:
        return setting
    name = Path(rest.partition(";")[0].partition("?")[0]).name or "setting"
    return f"{kind}-{name}".replace(":", "-")


@harness.command("run")
@click.argument("path")
@click.option("--setting", "setting_name", help="setting (default: the harness's)")
@click.option("--split", default="test", show_default=True,
              type=click.Choice(["probe", "validation", "test"]))
@click.option("--student", required=True, metavar="SPEC", help="the student model spec")
@click.option("--limit", type=click.IntRange(1), help="first N items of the split")
@click.option("--out", metavar="RUN_DIR", help="run directory (default: runs/harness-...)")
@click.option("--intervention", type=click.Choice(["decide", "select", "generate",
                                                   "integrate", "persist"]),
              help="apply one decision intervention to the harness")
@click.option("--concurrency", type=click.IntRange(1), default=1, show_default=True)
@click.option("--sandbox", "sandbox_name", type=click.Choice(["bwrap", "subprocess"]),
              default="bwrap", show_default=True, help="where the hooks run")
def run_(path: str, setting_name: str | None, split: str, student: str, limit: int | None,
         out: str | None, intervention: str | None, concurrency: int,
         sandbox_name: str) -> None:
    """Deploy HARNESS (a file, or `bare` / `recipe`) on a split into a run directory.

    The run is a normal tether run (store, resume, `tether report`): one trial per item,
    strategy compiled_harness (or bare / human_recipe), the student under role `student`.
    """
    from tether.cli import make_console
    from tether.runs import RunRequest, arm_rows, arm_table, execute, prepare
    from tether.systems.compile import check_harness, get_setting, read_harness_document, suite_name

    console, err_console = make_console(), make_console(stderr=True)
    setting_name = _setting_option(setting_name)
    if path not in ("bare", "recipe"):
        doc = read_harness_document(path)
        named = doc.get("setting") if isinstance(doc, dict) else None
        setting_name = setting_name or (named if isinstance(named, str) else None)
        report = check_harness(doc, get_setting(setting_name or ""))
        if not report.admissible:
            for violation in report.violations:
                click.echo(f"{violation.check}: {violation.detail}")
            err_console.print("[red]inadmissible[/]: not run", highlight=False)
            sys.exit(1)
    if not setting_name:
        raise click.UsageError("--setting is required with bare / recipe")
    # the split's items first: a setting or split error is then the user's one line, not
    # one about the temporary run config below
    load_harness_suite(suite_name(setting_name, split))
    config = harness_experiment(path, setting_name, split, student,
                                intervention=intervention, concurrency=concurrency,
                                sandbox=sandbox_name)
    # the experiment goes in as a dict: an error in it (a bad --student) then names the
    # role, never a temporary file the user did not write
    out = out or str(Path("runs") / f"harness-{_label(setting_name)}-{split}-{Path(path).stem}")
    try:
        prepared = prepare(RunRequest(experiment=config, out=out, limit=limit),
                           load=load_harness_suite)
    except ConfigError as exc:
        raise _as_student_error(exc, student) from None
    result = execute(prepared)
    rows = arm_rows(result.records, prepared.experiment.resolved())
    console.print(arm_table(rows, f"{config['name']}: {len(result.records)} items"))
    if result.errored:
        err_console.print(f"[red]{result.errored} trial(s) ended in error[/] (never scored)",
                          highlight=False)
    console.print(f"run directory: {prepared.store.dir}\nreport: tether report "
                  f"{prepared.store.dir}", highlight=False)
    prepared.store.close()
    sys.exit(1 if result.errored else 0)


def _as_student_error(exc: ConfigError, student: str) -> ConfigError:
    """The run's refusal of its model spec, said of `--student`: the experiment built
    above names the student under two roles, neither of which the user wrote."""
    _, sep, rest = str(exc).partition("models[0].")
    if not sep:
        return exc
    detail = rest.partition(": ")[2] or rest
    return ConfigError(f"--student {student!r}: {detail}", hint=exc.hint)


@harness.command("apply")
@click.argument("path", required=False)
@click.option("--data", metavar="SPEC",
              help="the rows: jsonl:PATH, csv:PATH, hf:PATH or parquet:PATH (optionally "
                   ";metric=NAME), or a path ending .jsonl, .csv or .parquet")
@click.option("--student", metavar="SPEC", help="the student model spec")
@click.option("--out", metavar="RUN_DIR", help="the run directory it writes")
@click.option("--resume", type=click.Path(path_type=Path), metavar="RUN_DIR",
              help="continue the apply in this directory (the rows not yet scored)")
@click.option("--json", "as_json", is_flag=True, help="print the result as one JSON object")
def apply(path: str | None, data: str | None, student: str | None, out: str | None,
          resume: Path | None, as_json: bool) -> None:
    """Deploy HARNESS (a harness file, or a compile's --out directory: its selected
    harness) on every row of a data file that has the fields the harness uses.

    Writes a run directory (one trial per row; a row with an `answer` is scored, one
    without is answered only) and RUN_DIR/predictions.jsonl, {"id", "answer"} per row in
    the file's order. Admissibility is checked on the data first; the checks that need
    gold answers run on its labelled rows only. Exit 0 done, 1 inadmissible or some row
    ended in error, 2 usage error.
    """
    from tether.cli import make_console
    from tether.systems.compile import Deployment
    from tether.systems.compile.cli.compile import _progress

    console, err_console = make_console(), make_console(stderr=True)
    with _progress(err_console, enabled=not as_json) as report:
        if resume is not None:
            if path or data or student or out:
                raise ConfigError("--resume takes no HARNESS, --data, --student or --out",
                                  hint="the apply continues as it was started")
            deployment = Deployment.resume(resume, progress=report)
            admission = deployment.run_store.event("admissibility", "") or {}
        else:
            missing = [name for name, given in (("HARNESS", path), ("--data", data),
                                                ("--student", student), ("--out", out))
                       if not given]
            if missing:
                raise ConfigError(f"missing {', '.join(missing)}",
                                  hint="tether harness apply HARNESS --data SPEC "
                                       "--student SPEC --out DIR")
            assert path and data and student and out  # for the type checker
            started, admission = Deployment.start(path, data, student, out,
                                                  progress=report)
            if started is None:
                _inadmissible(admission, as_json)
            assert started is not None
            deployment = started
        result = deployment.run()
    if as_json:
        click.echo(json.dumps({**result.to_json(), "admissibility": admission}))
    else:
        _applied(console, result)
    if result.errors:
        err_console.print(f"[red]{result.errors} row(s) ended in error[/] (no answer, never "
                          "scored)", highlight=False)
    sys.exit(1 if result.errors else 0)


def _inadmissible(admission: dict[str, Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({"admissibility": admission}))
    else:
        for violation in admission["violations"]:
            click.echo(f"{violation['check']}: {violation['finding'] or violation['detail']}")
        click.echo(f"checks run: {', '.join(admission['checks'])}")
    click.echo("inadmissible: not run", err=True)
    sys.exit(1)


def _applied(console: Any, result: Any) -> None:
    """What `apply` prints: the harness and data, the checks, the rows, the score."""
    lines = [f"harness {result.harness[:12]} from {result.harness_source}",
             f"data: {result.data}: {result.rows} rows, {result.labelled} labelled",
             f"checks run: {', '.join(result.checks)}"]
    if result.checks_not_run:
        reasons: dict[str, list[str]] = {}
        for check, why in result.checks_not_run.items():
            reasons.setdefault(why, []).append(check)
        lines += [f"checks not run: {', '.join(c)}: {why}" for why, c in reasons.items()]
    lines.append(f"answered: {result.answered} of {result.rows} rows "
                 f"({result.hook_errors} hook errors, {result.errors} errors)")
    lines.append("score: - (no labelled row)" if result.mean is None else
                 f"score: {100 * result.mean:.1f} over the {result.scored} labelled rows "
                 f"scored (metric {_metric(result.data)})")
    lines += [f"predictions: {result.predictions}", f"run directory: {result.run_dir}",
              f"report: tether report {result.run_dir}"]
    for line in lines:
        console.print(line, highlight=False, markup=False, soft_wrap=True)


def _metric(spec: str) -> str:
    from tether.systems.compile.settings import split_data_spec

    return split_data_spec(spec, announce=False)[2]
