"""Fill the OCR cache for the first N items of a harness setting's split.

The `docs` and `slides` settings OCR every page (and every slide) with tesseract, cached
by image digest (src/tether/systems/compile/settings/ocr.py). Uncached, the first 50 test items
of `slides` take about an hour on two shared cores; running this once, niced, in the
background lets later runs over the same items start no tesseract process at all:

    nice -n 10 python scripts/warm_ocr.py docs slides --split test --n 50

It prints, per setting, the items done, the tesseract processes started (cache misses)
and the seconds taken, and can be interrupted and restarted (finished pages stay cached).
"""

from __future__ import annotations

import argparse
import time

from tether.systems.compile.setting import DEFAULT_SIZES, SPLITS
from tether.systems.compile.tasks import setting_of


def warm(name: str, split: str, n: int, seed: int) -> None:
    setting = setting_of(name)
    engine = setting.engine
    items = setting.splits(seed, dict(DEFAULT_SIZES))[split][:n]
    start, calls0 = time.monotonic(), engine.calls
    for k, item in enumerate(items, 1):
        if name == "slides":
            setting.slide_texts(item)
        else:
            setting.ocr_text(item)
        print(f"{name} {split} {k}/{len(items)} {item.item_id}: "
              f"{engine.calls - calls0} tesseract runs, {time.monotonic() - start:.0f} s",
              flush=True)
    print(f"{name}: {len(items)} items, {engine.calls - calls0} tesseract runs "
          f"(cache misses), {time.monotonic() - start:.1f} s, cache {engine.cache.path}",
          flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("settings", nargs="+", choices=("docs", "slides"))
    parser.add_argument("--split", default="test", choices=SPLITS)
    parser.add_argument("--n", type=int, default=50, help="first N items of the split")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for name in args.settings:
        warm(name, args.split, args.n, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
