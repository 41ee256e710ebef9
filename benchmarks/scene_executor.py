"""Scene executor: a warm sandboxed bpy worker vs a fresh `python -c "import bpy; ..."`
subprocess per execution, without a render, on the scene suite's programs.

Programs: start.py and goal.py of the bundled scene tasks (--tasks of them, 20 -> 40
executions). Both sides open the task's base .blend, run the program traced and capture
the state: the fresh side runs the worker's own source (trace.py, state.py, _child.py,
_template.py; one execution as its forked child makes it)
once per execution in a bare subprocess, so it pays Python + bpy start-up each time.
Printed: executions/s of both, the ratio warm/fresh (goal >= 10x), and whether the
traces and states are identical on every program both sides ran (--fresh of them).

    .venv/bin/python benchmarks/scene_executor.py [--tasks 20] [--fresh 8]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tether.systems.scene.executor import bpy_site_packages, worker_program
from tether.systems.scene.scenes import TaskScenes
from tether.systems.scene.tasks import bundled_task_dirs, load_task


def fresh_execute(base: Path, source: str) -> dict:
    """One execution in a new `python -c` process: import bpy, open the base, run traced."""
    request = {"source": source, "filename": "program.py", "trace": True, "max_events": 10_000,
               "base": str(base), "render": None, "save": False}
    # _run is one execution as the worker's forked child makes it (the template's
    # execute() is for the sandbox only: it empties its directories between executions).
    script = (worker_program(str(bpy_site_packages()))
              + f"\nimport json as _j\nprint('@@' + _j.dumps(_run({request!r})))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, cwd=tempfile.gettempdir())
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("@@"))
    return json.loads(line[2:])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--fresh", type=int, default=8, help="executions on the fresh side")
    args = ap.parse_args()
    tasks = [load_task(d) for d in bundled_task_dirs()[: args.tasks]]
    programs = [(t, src) for t in tasks for src in (t.start, t.goal)]
    with TaskScenes() as scenes:
        bases = {t.id: scenes.base(t) for t in tasks}  # built (or found) before timing
        scenes.run(tasks[0], "")  # the warm side's one start-up, outside the timing
        start = time.perf_counter()
        warm = [scenes.run(t, src) for t, src in programs]
        warm_s = time.perf_counter() - start
    assert all(r.ok for r in warm), [r.error for r in warm if not r.ok]
    # Fresh side: a deterministic spread over the programs (every k-th).
    step = max(1, len(programs) // args.fresh)
    picked = list(range(0, len(programs), step))[: args.fresh]
    start = time.perf_counter()
    fresh = [fresh_execute(bases[programs[i][0].id], programs[i][1]) for i in picked]
    fresh_s = time.perf_counter() - start
    pairs = [(f, warm[i]) for i, f in zip(picked, fresh, strict=True)]
    same = sum(f["events"] == w.events and f["state"] == w.state
               and f["unresolved"] == w.unresolved for f, w in pairs)
    warm_rate, fresh_rate = len(warm) / warm_s, len(fresh) / fresh_s
    print(f"warm worker:   {len(warm)} executions in {warm_s:.2f} s = {warm_rate:.1f}/s")
    print(f"fresh process: {len(fresh)} executions in {fresh_s:.2f} s = {fresh_rate:.2f}/s")
    print(f"ratio warm/fresh: {warm_rate / fresh_rate:.1f}x (goal >= 10x)")
    print(f"identical traces and state: {same}/{len(fresh)}")
    if same != len(fresh):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
