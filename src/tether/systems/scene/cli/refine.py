"""`tether scene refine RAW.py`: the VETR refiner (Algorithm 1) on one submitted program.

Executes the initial program (--initial, else the task's start.py, else the base as it
is) once without a render (z0), the previous delivered program (--previous, else z0)
with a render, then refines RAW.py against them and prints which alternative was
accepted (or `raw` / `previous`), the executions used beyond the raw one, the
delivered program and the contract's checks with their values.
`--projection-scope keep_other_writes` (the default) makes a projection ineligible when
RAW.py also wrote outside the light channel, so a correct program is delivered as it is;
`paper` runs Algorithm 1 as the paper states it.
Exit 0 when a record was delivered, 1 when none could be, 2 for bad input.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import click

from tether.cli import make_console


def _read(path: Path | None, what: str) -> str | None:
    from tether.errors import ConfigError

    if path is None:
        return None
    if not path.exists():
        raise ConfigError(f"no {what} program at {path}")
    from tether.textio import read_text

    return read_text(path, what=f"{what} program")  # bounded; a FIFO is refused


@click.command("refine")
@click.argument("raw", type=click.Path(path_type=Path))
@click.option("--task", "task_dir", type=click.Path(path_type=Path), default=None,
              help="Task directory: run on its base scene; its start.py is the initial program.")
@click.option("--base", type=click.Path(path_type=Path), default=None,
              help="A .blend to run on (default: Blender's factory start-up scene).")
@click.option("--previous", type=click.Path(path_type=Path), default=None,
              help="The previous delivered program (default: the initial one).")
@click.option("--initial", type=click.Path(path_type=Path), default=None,
              help="The initial program z0 (default: the task's start.py, or an empty one).")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Write the delivered program here.")
@click.option("--size", type=int, default=None, help="Render size (default: the task's, or 256).")
@click.option("--samples", type=int, default=None,
              help="Cycles samples (default: the task's, or 16).")
@click.option("--projection-scope", type=click.Choice(["keep_other_writes", "paper"]),
              default="keep_other_writes", show_default=True,
              help="keep_other_writes: a projection never drops RAW.py's other writes; "
                   "paper: Algorithm 1 as the paper states it.")
@click.option("--timeout-s", type=float, default=120.0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the refinement as JSON.")
def refine_cmd(raw: Path, task_dir: Path | None, base: Path | None, previous: Path | None,
               initial: Path | None, out: Path | None, size: int | None, samples: int | None,
               projection_scope: str, timeout_s: float, as_json: bool) -> None:
    """Refine RAW.py from its execution evidence (no model calls)."""
    from tether.errors import ConfigError
    from tether.systems.scene import RenderSettings, SceneExecutor, SceneRecord, refine

    source = _read(raw, "raw")
    assert source is not None
    if task_dir is not None and base is not None:
        raise ConfigError("give --task or --base, not both")
    if (size is not None and size < 1) or (samples is not None and samples < 1):
        raise ConfigError("--size and --samples must be positive")
    prev_source, init_source = _read(previous, "previous"), _read(initial, "initial")
    with ExitStack() as stack:
        staged = None
        render = RenderSettings()
        if task_dir is not None:
            from tether.systems.scene import TaskScenes, load_any_task

            task = load_any_task(task_dir)
            scenes = stack.enter_context(TaskScenes(timeout_s=timeout_s))
            executor, staged, render = scenes.executor, scenes.staged(task), task.render
            init_source = init_source if init_source is not None else task.start
        else:
            executor = stack.enter_context(SceneExecutor(base, timeout_s=timeout_s))
        render = RenderSettings(size=size or render.size, samples=samples or render.samples)
        init_source = init_source if init_source is not None else "import bpy\n"
        z0 = SceneRecord(init_source, executor.execute(init_source, base=staged))
        prev = z0 if prev_source is None else SceneRecord(
            prev_source, executor.execute(prev_source, base=staged, render=render))
        result = refine(source, executor=executor, previous=prev, initial=z0, render=render,
                        base=staged, projection_scope=projection_scope)
    delivered = result.delivered
    if out is not None and delivered is not None:
        out.write_text(delivered.program)
    if as_json:
        click.echo(json.dumps(_json(result), indent=2, default=str))
    else:
        _print(result)
    if delivered is None:
        raise SystemExit(1)


def _json(result: Any) -> dict[str, Any]:
    d = result.delivered
    return {
        "accepted": result.accepted, "executions": result.executions,
        "projection_scope": result.projection_scope,
        "raw": {"ok": result.raw.execution.ok, "error": result.raw.execution.error,
                "rendered": result.raw.rendered},
        "delivered": None if d is None else {"program": d.program, "rendered": d.rendered},
        "checks": result.checks, "tried": result.tried,
    }  # fmt: skip


def _print(result: Any) -> None:
    console = make_console()
    say = lambda text: console.print(text, markup=False, highlight=False)  # noqa: E731
    raw_ex = result.raw.execution
    say(f"raw: {'executed' if raw_ex.ok else 'failed (' + raw_ex.error['kind'] + ')'}"
        f"{', rendered' if result.raw.rendered else ''}")
    if not raw_ex.ok:
        message = str(raw_ex.error.get("message") or "").strip()
        line = raw_ex.error.get("line")
        if message:  # what failed, before the alternatives its failure leaves unavailable
            say(f"  {'line ' + str(line) + ': ' if line else ''}{message}")
    for t in result.tried:
        built = "" if str(t["outcome"]).startswith("unavailable") \
            else f"  (compiled in {t['compile_ms']} ms)"
        say(f"  {t['alternative']:<24} {t['outcome']}{built}")
    say(f"accepted: {result.accepted}   executions beyond the raw one: {result.executions}"
        f"   projection scope: {result.projection_scope}")
    for name, check in result.checks.items():
        values = {k: v for k, v in check.items() if k != "ok"}
        say(f"  {'ok  ' if check['ok'] else 'FAIL'} {name} {json.dumps(values, default=str)}")
    if result.delivered is None:
        say("nothing could be delivered")
        return
    say("delivered program:")
    say(result.delivered.program.rstrip())
