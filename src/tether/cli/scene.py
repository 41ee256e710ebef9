"""`tether scene ...`: score renders, trace and render scene programs on real Blender.

Exit codes: `score` 0, or 2 for bad input; `trace` 0 when the program ran, 1 when it
raised or its execution failed (the events before the failure are still printed),
2 for bad input (no such file, bpy missing, a base that is not a .blend).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from tether.cli.console import make_console
from tether.scene import metrics


@click.group()
def scene() -> None:
    """Scene programs (VETR): Blender execution, write traces, render metrics."""


@scene.command("score")
@click.argument("image", type=click.Path(path_type=Path))
@click.argument("goal", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
def score(image: Path, goal: Path, as_json: bool) -> None:
    """Appendix L metrics of IMAGE against GOAL (PL, PSNR, SSIM, edge F1)."""
    scores = metrics.score(image, goal)
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
    console.print(f"N-CLIP  {scores.n_clip}   LPIPS {scores.lpips}")


@scene.command("trace")
@click.argument("program", type=click.Path(path_type=Path))
@click.option("--base", type=click.Path(path_type=Path), default=None,
              help="Base .blend (default: Blender's factory start-up scene).")
@click.option("--max-events", type=int, default=10_000, show_default=True)
@click.option("--timeout-s", type=float, default=60.0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print events, state, ok and error as JSON.")
def trace_cmd(program: Path, base: Path | None, max_events: int, timeout_s: float,
              as_json: bool) -> None:
    """Run PROGRAM afresh on real Blender (sandboxed) and print its property writes."""
    from tether.errors import ConfigError
    from tether.scene.executor import SceneExecutor

    if not program.is_file():
        raise ConfigError(f"no program at {program}")
    source = program.read_text()
    with SceneExecutor(base, timeout_s=timeout_s) as executor:
        result = executor.execute(source, max_events=max_events, filename=program.name)
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
