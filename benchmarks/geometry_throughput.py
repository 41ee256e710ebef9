"""Geometry throughput on the study's 64 recorded figure and slide artifacts, in one run.

Artifacts: run-1 single-shot and reviewed HTML of every figure (40) and slide (24) task
of the interaction-scaling study, read from ../shared/reference/interaction-scaling.

Sides (artifacts/s, browsers started before timing; lanes are opened inside the timed
runs, as `tether measure DIR` opens them):
  probe      the study's own probe protocol, reimplemented as the baseline: one
             artifact at a time, a new page per artifact, set_content, network idle,
             80 ms, the reference rules (geometry-probe.md "Rendering"), in a Chromium
             launched as the study launched it (Playwright's defaults; same executable
             and pinned fonts)
  probe*     the same protocol in tether's browser (its launch flags: no spare
             renderer, no RenderDocument, no omnibox popup WebUI)
  reference  tether's reference profile (same waits, same rules), measure_many with
             --ref-concurrency lanes in flight
  default    tether's default profile, measure_many with --concurrency lanes
  floor      one set_content + one evaluate per artifact in one reused page
Lanes default to what `tether measure` picks for 64 pages (systems/pages/cli.py
default_concurrency): reference 13, default one per core (2 here).

Printed: artifacts/s per side, reference/probe and default/floor ratios, the machine's
load average before and after (2 cores shared: the load says how much of them the
benchmark had), whether every side's counts equal one-at-a-time measurement, and the
CPU per artifact of each side (this process, the Playwright driver, every Chromium
process): with 2 cores, 1000 ms / (CPU ms per artifact) x 2 bounds artifacts/s.

--steps prints where one artifact's time goes, per step, with a fresh context per
artifact (the instrument before lanes) and in a reused lane (the instrument now), wall
and CPU.

    .venv/bin/python benchmarks/geometry_throughput.py [--repeat 2] [--steps]

Findings, this 2-core machine shared with other engineers and a model job.

1. Lanes (first version: a navigation to about:blank and a storage clear after each
   artifact). --steps, one at a time, ms per artifact:

  step                     before lanes (fresh context)       lanes (reused page)
                           reference  default               reference  default
  open context + page        226        246   (load 24: 443/573)     -         -
  load (+ network idle)      606        103                   583       131
  fonts ready                  -         48                     -        57
  settle (virtual 1 s)         -         16                     -        22
  wait 80 ms                  84          -                    84         -
  probe evaluate              24         39                    14        31
  close / leave page          28         25                    51       103
  CPU, all processes        1154        901   (load 24)       250       244
  artifacts/s               1.03       2.09                  1.36      2.89 (load 24)

  A new context starts a renderer (zygote fork, Blink and V8 start-up): 0.25 s wall and
  0.6-0.7 s of CPU, three quarters of a default measurement. Lanes start it once.

2. CPU per artifact by process (this file's CPU columns and a by-process split of the
   same /proc counters), what it showed and what was done:
  - With two lanes or more, 33 ms per artifact went to renderers that started and
    exited, plus more browser CPU: Chromium keeps one *spare* renderer warm for the
    browser context that last asked for one, and lanes are one context each, so every
    navigation threw the other context's spare away and forked a new one. Default
    profile, 64 artifacts, 2 lanes: 213 -> 144 ms CPU per artifact with
    --disable-features=SpareRendererForSitePerProcess (4 lanes: 232 -> 164). Chromium
    keeps only the last --disable-features, so the launcher script merges ours with
    Playwright's (launcher.py).
  - A same-site navigation costs about 58 ms of CPU (browser 27, renderer 18, GPU 4,
    driver 4, Python 2); set_content into the open document 5 ms but keeps the previous
    artifact's globals. Two navigations per artifact (artifact, about:blank) became one:
    each artifact has an origin of its own (a<n>.tether.invalid: same site, so the
    renderer process stays; checked: no renderer started across 64 navigations), and
    the finished document is retired in place (guard.py RETIRE_JS, 1 ms) instead of
    left. In a one-lane loop: 130-160 -> 100-120 ms CPU per artifact.
  - RenderDocument (a new frame host per document, even same-site) makes that
    navigation 58 ms; without it 43 (--disable-features=RenderDocument).
  - Not worth it (differences within the noise, +-6 ms): --in-process-gpu,
    --disable-gpu-rasterization, --disable-gpu-compositing, --disable-software-rasterizer,
    --disable-renderer-accessibility, --disable-site-isolation-trials; one evaluate for
    fonts.ready + settle + probe instead of three (a round trip is 1-4 ms of CPU).
  - Lane count: the default profile is CPU-bound, one lane per core is best (load ~7,
    64 artifacts, warm lanes: 1 lane 12.2/s, 2 lanes 14.4-16.2/s, 3 11.4/s, 4 12.0/s).
    Opening a lane costs about 0.7 s of CPU (renderer 460 ms, browser 190), six
    reference measurements, so for 64 artifacts 8 reference lanes beat 16 (cold, one
    run each: 7.3/s vs 5.9/s; warm: 16 lanes 12.8/s, 8 lanes 10.2/s).

3. --steps now (load 4.5-6.9), ms per artifact:

  step                     fresh context            lane (one navigation)
                           reference  default       reference  default
  open context + page        152        167             -          -
  load (+ network idle)      568         89           546         40
  fonts ready                  -         36             -         12
  settle (virtual 1 s)         -         17             -          5
  wait 80 ms                  82          -            82          -
  probe evaluate              13         26             9          9
  close / scrub               28         21            15         12
  CPU, all processes         921        501           123        101
  artifacts/s               1.19       2.79          1.53      12.99

4. Throughput before the omnibox fix (--repeat 2, a fresh machine, load 1-5;
   artifacts/s, counts the same as one-at-a-time measurement on every side; the probe
   then ran in tether's browser). Repeat 1 opens its lanes inside the timed run, as one
   `tether measure DIR` does; repeat 2 finds them open, as the later batches of a long
   run do:

  ref lanes  repeat   probe  reference  default  floor  ref/probe  CPU ms/artifact ref
      8        1       1.34     8.23     15.86   44.58     6.1x          198
      8        2       1.33    10.77     17.72   44.12     8.1x          109
      6        1       1.35     7.98     17.33   51.40     5.9x          166
     12        1       1.33     7.83     17.30   45.16     5.9x          234
     12        2       1.32    13.11     19.70   46.37     9.9x          117

  A cold batch of 64 was CPU-bound on 2 cores, half of it opening lanes (about 0.7 s of
  CPU each). By process, a new context's CPU went mostly to a renderer of a page no
  one asked for: headless Chromium 156 opens a window per context whose omnibox popup
  is a WebUI page (chrome://omnibox-popup.top-chrome/, `Target.getTargets` lists it as
  browser_ui), 100-650 ms of CPU per context and busy while the artifact loads.
  Disabled (WebUIOmniboxPopup, WebUIOmniboxAimPopup), opening a context + page costs
  about 150 ms of CPU (browser 80, renderer 30, GPU 20, driver 10), so lanes are cheap
  and `tether measure` allows one per 5 pages instead of 8.

5. Throughput now (--repeat 2, load 1-3, the probe in a Chromium launched with
   Playwright's defaults as the study's was; probe* is the same protocol in tether's
   browser):

  ref lanes  repeat   probe  probe*  reference  default  floor  ref/probe  CPU ms/art. ref
      8        1       1.31   1.42     10.45     17.50   59.96     8.0x         134
      8        2       1.31   1.41     10.79     16.47   58.80     8.2x         122
     12        1       1.30   1.43     11.69     16.00   58.25     9.0x         142
     16        1       1.30   1.42     11.52     16.16   54.31     8.8x         154
     13 (*)    1       1.31   1.43     11.41     17.64   62.23     8.7x         145
     13 (*)    2       1.30   1.42     14.45     18.54   59.04    11.1x         110
  (*) what `tether measure` picks for 64 pages now. The probe is wait-bound (a new page,
  network idle, 80 ms): tether's flags take its CPU from 950 to 260 ms per artifact but
  its rate only from 1.30 to 1.43/s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections import defaultdict
from pathlib import Path

from tether.studies.interaction_scaling.recorded_geometry import load_recorded
from tether.systems.pages.cli import default_concurrency
from tether.systems.pages.geometry.browser import BrowserHost
from tether.systems.pages.geometry.fonts import write_fontconfig
from tether.systems.pages.geometry.guard import guarded_probe
from tether.systems.pages.geometry.instrument import GeometryInstrument
from tether.systems.pages.geometry.lanes import Lane
from tether.systems.pages.geometry.probe_reference import PROBE_REFERENCE_JS
from tether.systems.pages.geometry.profiles import PROFILES
from tether.systems.pages.geometry.temporal import CLOCK_JS, settle

DEFAULT_REF = Path(__file__).resolve().parents[2] / "shared/reference/interaction-scaling"
TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu_s(root: int | None = None) -> float:
    """CPU seconds of `root` and all its descendants (Chromium's included), from /proc."""
    children: dict[int, list[int]] = defaultdict(list)
    cpu: dict[int, float] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        children[int(fields[1])].append(int(name))
        # utime, stime, and those of reaped children (renderers that exited)
        cpu[int(name)] = sum(int(x) for x in fields[11:15]) / TICK
    total, todo = 0.0, [root or os.getpid()]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo.extend(children.get(pid, []))
    return total


def load_avg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


async def study_probe(browser, html: str) -> int:
    """The study's protocol for one static artifact: new page, set_content, network
    idle, 80 ms, the probe; the page is closed after."""
    page = await browser.new_page(viewport={"width": 1920, "height": 1080},
                                  device_scale_factor=1)
    try:
        await page.set_content(html, wait_until="networkidle")
        await page.wait_for_timeout(80)
        result = await page.evaluate(f"({PROBE_REFERENCE_JS})({{web: false}})")
        return len(result["defects"])
    finally:
        await page.context.close()


async def study_browser(host: BrowserHost):
    """Chromium launched as the study launched it (Playwright's defaults, no flags of
    tether's), with the same executable and pinned fonts, so its counts are comparable."""
    env = dict(os.environ, FONTCONFIG_FILE=str(write_fontconfig(Path(host._tmp.name) / "fonts")))
    return await host._pw.chromium.launch(executable_path=host.executable, env=env,
                                          headless=True)


async def floor(host: BrowserHost, htmls: list[str]) -> None:
    async with host.page(1920, 1080) as s:
        for html in htmls:
            await s.page.set_content(html, wait_until="load")
            await s.page.evaluate("() => 0")


#: CPU seconds (this process and every child: driver, Chromium) of each timed side
CPU: dict[str, float] = {}


def timed(fn, side: str = ""):
    start, cpu = time.perf_counter(), tree_cpu_s()
    out = fn()
    CPU[side] = tree_cpu_s() - cpu
    return time.perf_counter() - start, out


def counts(observations) -> list[int]:
    errors = [o.error for o in observations if o.error]
    assert not errors, errors[:3]
    return [int(o.raw["n_defects"]) for o in observations]


def throughput(args, items) -> None:
    host = BrowserHost(concurrency=args.ref_concurrency)
    htmls = [a.html for a in items]
    work = [(a.html, a.modality, None) for a in items]
    n = len(items)
    ref = GeometryInstrument(GeometryInstrument.Params(profile="reference"), host=host)
    default = GeometryInstrument(GeometryInstrument.Params(profile="default"), host=host)
    plain = None
    try:
        default.measure("<p>warm up</p>", "figure")
        plain = host.run(study_browser(host))
        host.run(floor(host, htmls[:2]))
        # one at a time: the counts every concurrent side must reproduce
        host.set_concurrency(1)
        seq_ref = counts([ref.measure(h, m, f) for h, m, f in work])
        seq_def = counts([default.measure(h, m, f) for h, m, f in work])
        print(f"lanes: reference {args.ref_concurrency}, default {args.concurrency}")
        print(f"{n} artifacts (figures + slides, run-1 ss and rv); sequential sums: "
              f"reference {sum(seq_ref)} (recorded {sum(a.run1_n_defects for a in items)}), "
              f"default {sum(seq_def)}")
        print(f"{'repeat':<7} {'load before':>15} {'probe':>7} {'probe*':>7} {'reference':>10} "
              f"{'default':>8} "
              f"{'floor':>7} {'ref/probe':>10} {'floor/default':>14} {'counts':>7} "
              f"{'load after':>15}   (artifacts/s)")
        for r in range(args.repeat):
            before = load_avg()

            async def probe_all(browser):
                return [await study_probe(browser, h) for h in htmls]
            t_probe, probe_counts = timed(lambda: host.run(probe_all(plain)), "probe")
            t_probe_t, probe_t_counts = timed(lambda: host.run(probe_all(host._browser)),
                                              "probe*")
            host.set_concurrency(args.ref_concurrency)
            t_ref, ref_obs = timed(lambda: ref.measure_many(work), "reference")
            host.set_concurrency(args.concurrency)
            t_def, def_obs = timed(lambda: default.measure_many(work), "default")
            t_floor, _ = timed(lambda: host.run(floor(host, htmls)), "floor")
            same = (probe_counts == seq_ref == probe_t_counts and counts(ref_obs) == seq_ref
                    and counts(def_obs) == seq_def)
            print(f"{r + 1:<7} {before:>15} {n / t_probe:7.2f} {n / t_probe_t:7.2f} "
                  f"{n / t_ref:10.2f} "
                  f"{n / t_def:8.2f} {n / t_floor:7.2f} {t_probe / t_ref:9.1f}x "
                  f"{t_def / t_floor:13.1f}x {'same' if same else 'DIFFER':>7} "
                  f"{load_avg():>15}")
            print(f"{'':<7} {'CPU ms/artifact':>15} " + " ".join(
                f"{1000 * CPU[k] / n:{w}.0f}" for k, w in (("probe", 7), ("probe*", 7),
                                                          ("reference", 10), ("default", 8),
                                                          ("floor", 7))))
    finally:
        if plain is not None:
            host.run(plain.close())
        host.close()


async def steps_one(host: BrowserHost, html: str, profile, reuse, t: dict) -> None:
    def tick(name: str, since: float) -> float:
        now = time.perf_counter()
        t[name] += now - since
        return now
    mark = time.perf_counter()
    scripts = (CLOCK_JS,) if profile.controlled_time else ()
    lane = reuse.get(scripts)
    s = lane.session if lane else await host.open_session(host._browser, scripts)
    mark = tick("open context + page" if scripts not in reuse else "-", mark)
    s.reset()
    if profile.controlled_time:
        await s.load(html, "load", 15_000)
        mark = tick("load (navigate, route)", mark)
        await s.page.evaluate("() => document.fonts.ready.then(() => true)")
        mark = tick("fonts ready", mark)
        await settle(s.page, 1000)
        mark = tick("settle (virtual 1 s)", mark)
    else:
        await s.load(html, "networkidle", 15_000)
        mark = tick("load + network idle", mark)
        await s.page.wait_for_timeout(80)
        mark = tick("wait 80 ms", mark)
    await s.page.evaluate(guarded_probe(profile.probe_js), {"opts": {"web": False}})
    mark = tick("probe evaluate", mark)
    if lane is not None:
        await host.lanes.scrub(lane)
        mark = tick("scrub (retire, clear)", mark)
    else:
        await s.context.close()
        mark = tick("close context", mark)


def steps(items) -> None:
    host = BrowserHost(concurrency=1)
    try:
        start = time.perf_counter()
        host.run(asyncio.sleep(0))
        print(f"browser start: {time.perf_counter() - start:.2f} s (once per process); "
              f"load {load_avg()}")
        for name in ("reference", "default"):
            for mode in ("fresh context", "reused lane"):
                reuse = {}
                if mode == "reused lane":
                    scripts = (CLOCK_JS,) if PROFILES[name].controlled_time else ()
                    reuse[scripts] = Lane(host.run(host.open_session(host._browser, scripts)))
                t: dict[str, float] = defaultdict(float)
                cpu0, wall0 = tree_cpu_s(), time.perf_counter()
                for a in items:
                    host.run(steps_one(host, a.html, PROFILES[name], reuse, t))
                wall, cpu = time.perf_counter() - wall0, tree_cpu_s() - cpu0
                print(f"{name} profile, {mode}, one at a time: {len(items) / wall:.2f}/s, "
                      f"{1000 * cpu / len(items):.0f} ms CPU per artifact")
                for step, v in t.items():
                    if step != "-":
                        print(f"    {step:<24} {1000 * v / len(items):7.1f} ms")
                for lane in reuse.values():
                    host.run(lane.session.context.close())
    finally:
        host.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", type=Path, default=DEFAULT_REF)
    ap.add_argument("--concurrency", type=int,
                    help="default profile lanes [default: as tether measure picks them]")
    ap.add_argument("--ref-concurrency", type=int,
                    help="reference profile lanes [default: as tether measure picks them]")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--steps", action="store_true", help="per-step breakdown instead")
    args = ap.parse_args()
    if not args.reference.is_dir():
        raise SystemExit(f"no reference data at {args.reference}")
    items = load_recorded(args.reference, "figures") + load_recorded(args.reference, "slides")
    args.concurrency = args.concurrency or default_concurrency("default", len(items))
    args.ref_concurrency = args.ref_concurrency or default_concurrency("reference", len(items))
    if args.steps:
        steps(items)
    else:
        throughput(args, items)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
