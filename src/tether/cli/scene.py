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
