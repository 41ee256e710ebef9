"""Warm OCR lookups on `docs`: drawing the page to key the cache (before) against the
in-process memo of `OcrEngine.text_of` (now), measured in the same run.

A compile scores the same items under many proposals, so each item's OCR is looked up
once per proposal and split. With a warm persistent cache the lookup used to draw the
page every time to compute its key; the memo draws it once per process. The cache is
warmed first (untimed, tesseract runs once per page in a temporary cache), then PASSES
passes over the items are timed both ways; the memo's first pass includes its one
drawing per page.

    .venv/bin/python benchmarks/ocr_memo.py [--items 20 --passes 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tether.systems.compile.settings.docs import DocsSetting  # noqa: E402
from tether.systems.compile.settings.ocr import OcrCache, OcrEngine  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as cache_dir:
        docs = DocsSetting(engine=OcrEngine(OcrCache(cache_dir)))
        items = docs.splits(0, {"probe": 0, "validation": 0, "test": args.items})["test"]
        for item in items:  # warm the persistent cache (untimed)
            docs.engine.text(docs.image(item))
        warm_runs = docs.engine.calls
        start = time.perf_counter()
        before = [docs.engine.text(docs.image(item)) for _ in range(args.passes)
                  for item in items]
        drawn = time.perf_counter() - start
        docs.engine.clear_memo()
        start = time.perf_counter()
        now = [docs.ocr_text(item) for item in items]  # draws each page once
        first = time.perf_counter() - start
        now += [docs.ocr_text(item) for _ in range(args.passes - 1) for item in items]
        memo = time.perf_counter() - start
        assert now == before, "the memo returned other texts"
        assert docs.engine.calls == warm_runs, "a warm lookup ran tesseract"
        lookups = len(before)
    print(f"{lookups} warm lookups ({args.items} pages x {args.passes} passes), "
          f"tesseract runs while timed: 0")
    print(f"drawing the page to key the cache: {drawn:.3f} s "
          f"({1000 * drawn / lookups:.2f} ms per lookup)")
    print(f"in-process memo: {memo:.3f} s ({1000 * memo / lookups:.2f} ms per lookup; "
          f"{docs.engine.renders} pages drawn, once each, {first:.3f} s of it in the "
          f"first pass; later passes {1000 * (memo - first) / max(lookups - len(items), 1):.3f}"
          " ms per lookup)")
    print(f"speed-up: {drawn / memo:.1f}x over {args.passes} passes")


if __name__ == "__main__":
    main()
