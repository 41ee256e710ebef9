"""What the default profile's occlusion rule costs: with it against without it, one run.

Artifacts: the interaction-scaling study's run-1 figure, slide and web artifacts (both sides
of 20 figure, 12 slide and 20 web tasks: 104, from ../shared/reference), else the
planted and third-party test pages. Sides, measured alternately (A B A B ...) in one
shared browser so machine load hits both alike:
  with       the default profile as shipped (default-2: occlusion, grid rule)
  without    the same probe with the occlusion check replaced by "nothing is covered"
Printed: artifacts/s per side and repeat, the with/without time ratio, the load average
before and after, and how many occlusion defects the rule found (what the time buys).

    .venv/bin/python benchmarks/geometry_occlusion.py [--repeat 3] [--concurrency 2]

Findings (this 2-core machine shared with other engineers, load 11-14, --repeat 4, 2
lanes): with 2.70 artifacts/s, without 3.03; with/without time 1.12. The check is about a
tenth of a default-profile measurement. It found no occlusion in the study's 104
artifacts (before fixed and sticky bars were exempted on web pages it found 15, every one
under the fixed bottom bar of two web pages: content a reader scrolls out from under it).
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace
from pathlib import Path

from tether.systems.pages.geometry.browser import BrowserHost
from tether.systems.pages.geometry.instrument import GeometryInstrument
from tether.systems.pages.geometry.probe_default import PROBE_DEFAULT_JS
from tether.systems.pages.geometry.probe_occlusion import OCCLUSION_JS
from tether.systems.pages.geometry.profiles import PROFILES

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared/reference/interaction-scaling"
if not REFERENCE.is_dir():
    REFERENCE = Path("/work/shared/reference/interaction-scaling")
TESTS = ROOT / "tests/systems/pages/geometry"

NO_OCCLUSION = "\n  const isCovered = () => false;\n"


def items() -> list[tuple[str, str, None]]:
    if REFERENCE.is_dir():
        from tether.studies.interaction_scaling.recorded_geometry import load_recorded

        found = [a for folder in ("figures", "slides", "web")
                 for a in load_recorded(REFERENCE, folder)]
        return [(a.html, a.modality, None) for a in found]
    pages = sorted((TESTS / "planted").glob("*.html")) + sorted(
        (TESTS / "third_party").glob("*.html"))
    return [(p.read_text(), "web" if p.name.startswith("web") else "figure", None)
            for p in pages if not p.name.startswith("anim")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    work = items()
    shipped = PROFILES["default"]
    assert OCCLUSION_JS in PROBE_DEFAULT_JS
    without = replace(shipped, probe_js=PROBE_DEFAULT_JS.replace(OCCLUSION_JS, NO_OCCLUSION))
    host = BrowserHost(concurrency=args.concurrency)
    sides = {"with": GeometryInstrument(host=host), "without": GeometryInstrument(host=host)}
    sides["without"].profile = without
    print(f"{len(work)} artifacts, {args.concurrency} lanes, load before "
          f"{os.getloadavg()[0]:.1f}")
    sides["with"].measure_many(work[:4])  # warm the browser and its lanes
    seconds: dict[str, float] = {"with": 0.0, "without": 0.0}
    found = 0
    for rep in range(args.repeat):
        for name in ("without", "with") if rep % 2 else ("with", "without"):
            start = time.perf_counter()
            obs = sides[name].measure_many(work)
            took = time.perf_counter() - start
            seconds[name] += took
            errors = sum(1 for o in obs if o.error)
            if name == "with":
                found = sum(o.raw.get("counts", {}).get("occlusion", 0) for o in obs)
            print(f"  repeat {rep + 1} {name:<8} {len(work) / took:6.2f} artifacts/s"
                  + (f" ({errors} errors)" if errors else ""))
    host.close()
    print(f"with/without time: {seconds['with'] / seconds['without']:.3f} "
          f"(artifacts/s with {len(work) * args.repeat / seconds['with']:.2f}, without "
          f"{len(work) * args.repeat / seconds['without']:.2f}); load after "
          f"{os.getloadavg()[0]:.1f}")
    print(f"occlusion defects found: {found} in {len(work)} artifacts")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
