"""`tether demo`: the main job on the embedded default model, no API key needed.

For now it shows the two foundations end to end: a real local generation with
SmolLM2-135M (llama.cpp in-process) and the sandboxed execution of what it wrote
against a small check. It reports honestly what happened: a 135M model often
writes a wrong program, and that is the point of grounding the score in execution.
"""

from __future__ import annotations

import re

import click
from rich.console import Console
from rich.panel import Panel

from tether.models import DEFAULT_MODEL, parse_model

TASK = (
    "Write a Python function `add(a, b)` that returns the sum of a and b. "
    "Answer with only the code in one ```python fenced block."
)
CHECK = "\nassert add(2, 3) == 5\nassert add(-1, 1) == 0\nprint('CHECKS PASSED')\n"
_FENCE = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.S)


def extract_code(text: str) -> str:
    """The last fenced block, else the whole reply (the demo's simple extractor)."""
    blocks = _FENCE.findall(text)
    return blocks[-1] if blocks else text


@click.command()
@click.option("--model", "spec", default=DEFAULT_MODEL, show_default=True)
@click.option("--backend", type=click.Choice(["bwrap", "subprocess"]), default="bwrap",
              show_default=True, help="sandbox backend (subprocess is unsafe: tests only)")
@click.option("--seed", default=0, show_default=True)
def demo(spec: str, backend: str, seed: int) -> None:
    """Generate a program with the local model and run its checks in the sandbox."""
    from tether.sandbox import get_sandbox

    console = Console()
    console.print(f"[bold]1. generation[/] with {spec} (seed {seed}, temperature 0)")
    model = parse_model(spec)
    (c,) = model.generate([{"role": "user", "content": TASK}], max_tokens=200, seed=seed,
                          role="proposer")
    console.print(Panel(c.text, title="model reply", expand=False), markup=False)
    u = c.usage
    console.print(f"   {u.input_tokens} input + {u.output_tokens} output tokens, "
                  f"{c.latency_s:.2f}s, {u.output_tokens / max(c.latency_s, 1e-9):.0f} tokens/s")

    code = extract_code(c.text)
    console.print(f"[bold]2. execution[/] in the {backend} sandbox "
                  "(no network, writes only to its work dir, 10 s, 256 MiB)")
    result = get_sandbox(backend).run(
        ["python3", "candidate.py"], files={"candidate.py": (code + CHECK).encode()},
        timeout_s=10, memory_mb=256,
    )
    passed = result.returncode == 0 and "CHECKS PASSED" in result.stdout
    tail = (result.stderr.strip().splitlines() or [""])[-1]
    console.print(f"   return code {result.returncode}, {result.duration_s * 1000:.0f} ms"
                  + (f", killed: {result.killed_reason}" if result.killed_reason else ""))
    verdict = "[green]PASSED[/]" if passed else f"[red]FAILED[/] {tail}"
    console.print(f"[bold]3. grounded verdict[/] from the checks: {verdict}", highlight=False)
    console.print("[dim]The strategies, runner and report of later releases build on exactly "
                  "these two pieces.[/]")
