"""Scene render times per size / samples (Cycles on the CPU), and the minibpy test double's
execution rate next to the warm bpy worker's, on one bundled task.

One warm TaskScenes (the worker's start-up and the base build are outside the timing).
For each size/samples, --reps executions of the task's goal.py with a render; the render's
time is the median execution with a render minus the median execution without one (both
include reloading the base). Then the 40 start/goal programs traced without a render on
the warm bpy worker and on minibpy (in-process): executions/s of both.

    .venv/bin/python benchmarks/scene_render.py [--task placement_box_back] [--reps 3] [--paper]

--paper adds the paper's render preset (executor.RENDER_PRESETS["paper"]: 512 x 512 at
512 samples), once per rep: minutes on a shared 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from tether.systems.scene.executor import RENDER_PRESETS, RenderSettings
from tether.systems.scene.scenes import TaskScenes
from tether.systems.scene.tasks import bundled_task_dirs, bundled_tasks_dir, load_task
from tether.testing.minibpy.executor import MiniBpyExecutor

SETTINGS = ((64, 8), (128, 16), (256, 16), (256, 64))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", default="placement_box_back")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--paper", action="store_true", help="also time the paper's preset")
    args = ap.parse_args()
    paper = RENDER_PRESETS["paper"]
    settings_list = SETTINGS + (((paper["size"], paper["samples"]),) if args.paper else ())
    task = load_task(bundled_tasks_dir() / args.task)
    tasks = [load_task(d) for d in bundled_task_dirs()]
    programs = [(t, src) for t in tasks for src in (t.start, t.goal)]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; task {task.id}")
    with TaskScenes(timeout_s=900.0 if args.paper else 120.0) as scenes:
        for t in tasks:
            scenes.base(t)  # built (or found in the cache) before timing
        scenes.run(task, "")  # the worker's start-up, outside the timing
        bare = statistics.median(
            scenes.run(task, task.goal, trace=False).duration_s for _ in range(args.reps))
        print(f"execution without a render: {bare * 1000:.0f} ms (median of {args.reps})")
        print("size  samples  execution+render (median)  render alone")
        for size, samples in settings_list:
            settings = RenderSettings(size=size, samples=samples)
            runs = [scenes.run(task, task.goal, render=settings, trace=False)
                    for _ in range(args.reps)]
            assert all(r.ok and r.render_png for r in runs), [r.error for r in runs]
            total = statistics.median(r.duration_s for r in runs)
            same = len({r.render_png for r in runs}) == 1
            print(f"{size:>4}  {samples:>7}  {total:>20.2f} s  {total - bare:>10.2f} s"
                  f"{'' if same else '  (renders differ!)'}")
        start = time.perf_counter()
        real = [scenes.run(t, src) for t, src in programs]
        real_s = time.perf_counter() - start
    executors = {t.id: MiniBpyExecutor.for_task(t) for t in tasks}  # bases checked once
    start = time.perf_counter()
    mini = [executors[t.id].execute(src) for t, src in programs]
    mini_s = time.perf_counter() - start
    assert all(r.ok for r in real + mini)
    same = sum(a.events == b.events for a, b in zip(real, mini, strict=True))
    print(f"{len(programs)} programs traced, no render: bpy warm worker "
          f"{len(programs) / real_s:.1f}/s, minibpy {len(programs) / mini_s:.1f}/s "
          f"({real_s / mini_s:.1f}x); identical trace events on {same}/{len(programs)}")


if __name__ == "__main__":
    main()
