"""Throughput of the geometry instrument: reused browser vs fresh browser vs the floor.

Artifacts: the recorded run-1 HTML of the interaction-scaling study, the first --n of
each kind: static pages (figures and slides, one 1920x1080 probe), web pages (two
probes, 1920x1080 and 375x812) and animations (5 frames under controlled time).

Sides, all measured one artifact at a time unless said otherwise:
  reused      the shared browser, its reused pages (lanes: a new document per artifact)
  reused x C  the same, C artifacts in flight at once (measure_many)
  fresh       a newly launched Chromium for every artifact (the naive baseline)
  floor       one set_content plus one empty evaluate per artifact on one open page of
              the reused browser: no probe, no context, no waiting

Printed: artifacts/s per side and kind, reused/fresh and reused/floor speed ratios.

    .venv/bin/python benchmarks/geometry.py [--n 6] [--concurrency 4] [--profile default]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from contextlib import asynccontextmanager
from pathlib import Path

from tether.systems.pages.geometry.browser import BrowserHost
from tether.systems.pages.geometry.instrument import GeometryInstrument
from tether.systems.pages.geometry.measure import measure_html

DEFAULT_REF = Path(__file__).resolve().parents[2] / "shared/reference/interaction-scaling"
FRAMES = (200, 1000, 1800, 2600, 3400)


class FreshBrowserHost(BrowserHost):
    """A host that launches a new Chromium for every page (the baseline)."""

    @asynccontextmanager
    async def lane(self, width, height, init_scripts=()):  # the pages measure_html uses
        browser = await self.fresh_browser()
        try:
            # the same guarded context as the reused browser's pages
            session = await BrowserHost.open_session(browser, init_scripts)
            await session.page.set_viewport_size({"width": width, "height": height})
            yield session
        finally:
            await browser.close()


def load(ref: Path, n: int) -> dict[str, list[tuple[str, str, tuple[int, ...] | None]]]:
    import json

    def first(folder: str, modality: str, frames=None):
        out = []
        for path in sorted((ref / "recorded/visual" / folder).glob("*.json"))[:n]:
            out.append((json.loads(path.read_text())["ss_html"], modality, frames))
        return out
    half = max(1, n // 2)
    return {"static": first("figures", "figure")[:half] + first("slides", "slide")[:n - half],
            "web": first("web", "web"), "animation": first("animations", "animation", FRAMES)}


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=6, help="artifacts per kind")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--profile", default="default", choices=["default", "reference"])
    ap.add_argument("--reference", type=Path, default=DEFAULT_REF)
    args = ap.parse_args()
    kinds = load(args.reference, args.n)
    host = BrowserHost(concurrency=args.concurrency)
    fresh = FreshBrowserHost(concurrency=1)
    inst = GeometryInstrument(GeometryInstrument.Params(profile=args.profile), host=host)
    inst.measure("<p>warm up</p>", "figure")
    fresh.run(asyncio.sleep(0))  # start its Playwright driver outside the timing

    async def floor(items):
        async with host.page(1920, 1080) as s:
            for html, _, _ in items:
                await s.page.set_content(html, wait_until="load")
                await s.page.evaluate("() => 0")

    def one_at_a_time(h, items):
        for item in items:
            obs = h.run(measure_html(h, item[0], item[1], inst.profile, item[2]))
            assert not obs.error, obs.error

    print(f"geometry benchmark: {args.profile} profile, {args.n} artifacts per kind, "
          f"concurrency {args.concurrency}")
    print(f"{'kind':<10} {'reused':>9} {'reused x' + str(args.concurrency):>11} "
          f"{'fresh':>9} {'floor':>9} {'reused/fresh':>13} {'xC/fresh':>9} "
          f"{'x floor':>8}   (artifacts/s)")
    try:
        for kind, items in kinds.items():
            n = len(items)
            t_reused = timed(lambda items=items: one_at_a_time(host, items))
            t_conc = timed(lambda items=items: inst.measure_many(items))
            t_fresh = timed(lambda items=items: one_at_a_time(fresh, items))
            t_floor = timed(lambda items=items: host.run(floor(items)))
            print(f"{kind:<10} {n / t_reused:9.2f} {n / t_conc:11.2f} {n / t_fresh:9.2f} "
                  f"{n / t_floor:9.2f} {t_fresh / t_reused:13.2f} {t_fresh / t_conc:9.2f} "
                  f"{t_reused / t_floor:8.2f}")
    finally:
        host.close()
        fresh.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
