"""`tether scene ...`: score renders, trace and render scene programs on real Blender.

Exit codes: `score` 0, or 2 for bad input; `trace` 0 when the program ran, 1 when it
raised or its execution failed (the events before the failure are still printed),
2 for bad input (no such file, bpy missing, a base that is not a .blend).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from tether.cli import make_console


def _program_text(path: Path) -> str:
    """A scene program's text, bounded (a FIFO or a device is one error line)."""
    from tether.textio import read_text

    return read_text(path, what="scene program")


@click.group()
def scene() -> None:
    """Scene programs (VETR): Blender execution, write traces, render metrics."""


@scene.command("score")
@click.argument("image", type=click.Path(path_type=Path))
@click.argument("goal", type=click.Path(path_type=Path))
@click.option("--clip-onnx", type=click.Path(path_type=Path), default=None,
              help="CLIP ViT-B/32 image encoder as ONNX, for N-CLIP (else $TETHER_CLIP_ONNX).")
@click.option("--lpips-onnx", type=click.Path(path_type=Path), default=None,
              help="LPIPS (AlexNet) network as ONNX (else $TETHER_LPIPS_ONNX).")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
def score(image: Path, goal: Path, clip_onnx: Path | None, lpips_onnx: Path | None,
          as_json: bool) -> None:
    """Appendix L metrics of IMAGE against GOAL (PL, PSNR, SSIM, edge F1, N-CLIP, LPIPS)."""
    from tether.systems.scene import LearnedMetrics, score as score_images

    scores = score_images(image, goal, LearnedMetrics.configured(clip_onnx, lpips_onnx))
    if as_json:
        click.echo(json.dumps(scores.to_json(), indent=2))
        return
    console = make_console()
    w, h = scores.size
    console.print(f"at {w}x{h}{' (image resized)' if scores.resized else ''}")
    console.print(f"PL      {scores.pl:.6g}")
    console.print(f"PSNR    {scores.psnr:.3f} dB")
    console.print(f"SSIM    {scores.ssim:.4f}")
    console.print(f"edge F1 {scores.edge_f1:.4f}")
    for key, label in (("n_clip", "N-CLIP "), ("lpips", "LPIPS  ")):
        value = getattr(scores, key)
        why = scores.unavailable.get(key)
        console.print(f"{label} {value:.4f}" if why is None else f"{label} {value} ({why})",
                      markup=False)


@scene.command("trace")
@click.argument("program", type=click.Path(path_type=Path))
@click.option("--base", type=click.Path(path_type=Path), default=None,
              help="Base .blend (default: Blender's factory start-up scene).")
@click.option("--task", "task_dir", type=click.Path(path_type=Path), default=None,
              help="Task directory: run on its base scene (built and cached on first use).")
@click.option("--backend", type=click.Choice(["bpy", "minibpy"]), default="bpy",
              show_default=True,
              help="bpy: real Blender, sandboxed. minibpy: the in-process test double (no "
                   "sandbox: only for programs you trust), on the factory scene or a --task "
                   "in tether's layout (its base.py rebuilt on minibpy); no --base .blend.")
@click.option("--max-events", type=int, default=10_000, show_default=True)
@click.option("--timeout-s", type=float, default=60.0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print events, state, ok and error as JSON.")
def trace_cmd(program: Path, base: Path | None, task_dir: Path | None, backend: str,
              max_events: int, timeout_s: float, as_json: bool) -> None:
    """Run PROGRAM afresh on real Blender (sandboxed) and print its property writes."""
    from tether.errors import ConfigError
    from tether.systems.scene import SceneExecutor

    if not program.exists():  # one that is no regular file: _program_text says so
        raise ConfigError(f"no program at {program}")
    source = _program_text(program)
    if task_dir is not None and base is not None:
        raise ConfigError("give --task or --base, not both")
    if backend == "minibpy":
        if base is not None:
            raise ConfigError("--backend minibpy cannot load a .blend (it is a test double)",
                              hint="use --task with a task directory, or --backend bpy")
        from tether.systems.scene.minibpy_backend import minibpy_executor

        MiniBpyExecutor = minibpy_executor()  # noqa: N806 - the double's class

        if task_dir is not None:
            from tether.systems.scene import load_any_task

            executor = MiniBpyExecutor.for_task(load_any_task(task_dir))
        else:
            executor = MiniBpyExecutor()
        with executor as mini:
            result = mini.execute(source, max_events=max_events, filename=program.name)
    elif task_dir is not None:
        from tether.systems.scene import TaskScenes, load_any_task

        task = load_any_task(task_dir)
        with TaskScenes(timeout_s=timeout_s) as scenes:
            result = scenes.executor.execute(source, base=scenes.staged(task),
                                             max_events=max_events, filename=program.name)
    else:
        with SceneExecutor(base, timeout_s=timeout_s) as scene_executor:
            result = scene_executor.execute(source, max_events=max_events, filename=program.name)
    out = result.to_json()
    if as_json:
        click.echo(json.dumps(out, indent=2))
    else:
        console = make_console()
        for e in result.events:
            index = "" if e["index"] is None else f"[{e['index']}]"
            console.print(f"line {e['line']:>4}  {e['owner'][0]}[{e['owner'][1]!r}].{e['path']}"
                          f"{index} = {e['value']!r} -> {e['readback']!r}  ({e['kind']})",
                          markup=False)
        for u in result.unresolved:
            console.print(f"line {u['line']:>4}  unresolved {u['target']}: {u['reason']}",
                          markup=False)
        if result.truncated:
            console.print(f"(truncated at {max_events} events)")
        if result.error:
            console.print(f"error ({result.error['kind']}) at line {result.error['line']}: "
                          f"{result.error['message']}", markup=False)
    if not result.ok:
        raise SystemExit(1)


@scene.command("render")
@click.argument("program", type=click.Path(path_type=Path))
@click.option("--task", "task_dir", type=click.Path(path_type=Path), default=None,
              help="Task directory: render on its base scene (default: Blender's factory scene).")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="PNG to write.")
@click.option("--size", type=int, default=256, show_default=True)
@click.option("--samples", type=int, default=16, show_default=True)
@click.option("--timeout-s", type=float, default=120.0, show_default=True)
def render_cmd(program: Path, task_dir: Path | None, out: Path, size: int, samples: int,
               timeout_s: float) -> None:
    """Render PROGRAM with Cycles on the CPU (fixed seed, no denoiser) to a PNG."""
    from tether.errors import ConfigError
    from tether.systems.scene import RenderSettings, SceneExecutor

    if not program.exists():  # one that is no regular file: _program_text says so
        raise ConfigError(f"no program at {program}")
    if size < 1 or samples < 1:
        raise ConfigError("--size and --samples must be positive")
    settings = RenderSettings(size=size, samples=samples)
    source = _program_text(program)
    if task_dir is not None:
        from tether.systems.scene import TaskScenes, load_any_task

        task = load_any_task(task_dir)
        with TaskScenes(timeout_s=timeout_s) as scenes:
            result = scenes.run(task, source, render=settings, trace=False,
                                filename=program.name)
    else:
        with SceneExecutor(timeout_s=timeout_s) as executor:
            result = executor.execute(source, render=settings, trace=False,
                                      filename=program.name)
    if not result.ok or result.render_png is None:
        error = result.error or {}
        click.echo(f"error ({error.get('kind')}) at line {error.get('line')}: "
                   f"{error.get('message', '')}", err=True)
        raise SystemExit(1)
    out.write_bytes(result.render_png)
    for o in result.overrides:
        click.echo(f"override: {o['path']} {o['from']} -> {o['to']}")
    click.echo(f"wrote {out} ({size}x{size}, {samples} samples, {result.duration_s:.2f} s)")


@scene.group("tasks")
def tasks() -> None:
    """Scene tasks in the BlenderGym layout."""


@tasks.command("check")
@click.argument("dirs", nargs=-1, type=click.Path(path_type=Path))
@click.option("--bundled", is_flag=True, help="Check every task of tether's own scene suite.")
@click.option("--record", is_flag=True,
              help="Write the start/goal render digests into task.json instead of checking them.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per task, in a list.")
def tasks_check(dirs: tuple[Path, ...], bundled: bool, record: bool, as_json: bool) -> None:
    """Check task DIRs: base deterministic, start/goal run, renders deterministic and as stored.

    A DIR holding task directories is expanded. Prints each task's family and where it
    came from (task.json, the folder name, the default). Exit 0 when all pass, 1 with one
    line per failing task, 2 for bad input.
    """
    from tether.errors import ConfigError
    from tether.systems.scene import TaskScenes, bundled_task_dirs, check_task, load_any_task

    paths = list(bundled_task_dirs()) if bundled else []
    for d in dirs:
        if d.is_dir() and not (d / "task.json").is_file() and not (d / "start.py").is_file():
            paths += sorted(p for p in d.iterdir() if (p / "start.py").is_file())
        else:
            paths.append(d)
    if not paths:
        raise ConfigError("no task directories given", hint="name DIRs, or pass --bundled")
    loaded = [load_any_task(p) for p in paths]
    with TaskScenes() as scenes:
        results = [check_task(scenes, t, record=record) for t in loaded]
    failed = [r for r in results if not r.ok]
    if as_json:
        click.echo(json.dumps([r.to_json() for r in results], indent=2))
    else:
        for r in failed:
            click.echo(f"FAIL {r.task}: {'; '.join(r.problems)}")
        for r in results:
            for note in r.details.get("notes", []):
                click.echo(f"note {r.task}: {note['message']}")
        for r in results:
            click.echo(f"family {r.task}: {r.details['family']} (from {r.details['family_from']})")
        click.echo(f"{len(results) - len(failed)}/{len(results)} tasks pass"
                   + (" (digests recorded)" if record else ""))
    if failed:
        raise SystemExit(1)


# `tether scene refine` (the VETR refiner): its own module, registered here.
from tether.systems.scene.cli.refine import refine_cmd  # noqa: E402

scene.add_command(refine_cmd)
