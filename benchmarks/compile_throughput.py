"""Wall time of scoring one split of a compile, serial against concurrent student calls.

The student is a remote (OpenAI-compatible) model; the endpoint is a local stand-in on
127.0.0.1 that answers every request after a fixed latency (200 ms by default: the
stand-in of parallel_samples.py), so what is measured is how many round trips the
scorer waits for, not a model's speed. The split: --items rows of a JSONL data setting
written to a temporary directory, scored with the bare harness (one student call per
item) by `SplitScorer`, once with the student spec's `concurrency=1` and once with
`concurrency=N`. Each side gets its own endpoint (the per-endpoint limit is shared by
every client of one base URL in a process) and its own empty compile run directory
(each scored item is committed there as a trial, as in a compile).

Printed: both wall times and their ratio; the two sides' scores must be identical.
Goal: ratio >= 4 for 50 items at concurrency 8.

    .venv/bin/python benchmarks/compile_throughput.py [--items 50] [--concurrency 8]
                                                       [--latency 0.2]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from parallel_samples import serve

from tether.models import parse_model
from tether.systems.compile.compiler.endpoint import StudentEndpoint
from tether.systems.compile.compiler.run import CompileRun
from tether.systems.compile.compiler.scoring import SplitScore, SplitScorer
from tether.systems.compile.harness import bare_harness
from tether.systems.compile.setting import get_setting
from tether.systems.compile.tasks import item_tasks


def score_once(setting_spec: str, items: int, concurrency: int, latency: float,
               work: Path) -> tuple[float, SplitScore]:
    httpd = serve(latency)
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        spec = f"openai-compatible/stand-in@{url};concurrency={concurrency}"
        model = parse_model(spec)
        setting = get_setting(setting_spec)
        sizes = {"probe": items, "validation": 0, "test": 0}
        split = setting.splits(0, sizes)["probe"]
        tasks = item_tasks(setting.name, "probe", split, suite="bench", seed=0, sizes=sizes)
        with CompileRun.create(work, {"student": spec, "seed": 0}, tasks) as run:
            scorer = SplitScorer(setting, StudentEndpoint(model), run)
            start = time.perf_counter()
            result = scorer.score(bare_harness(setting.name), "probe", split)
            return time.perf_counter() - start, result
    finally:
        httpd.shutdown()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=50, help="student calls (one per item)")
    ap.add_argument("--concurrency", type=int, default=8, help="the student spec's option")
    ap.add_argument("--latency", type=float, default=0.2, help="seconds per request")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = Path(tmp) / "rows.jsonl"
        rows.write_text("".join(json.dumps({"id": f"r{k}", "question": f"Question {k}?",
                                            "answer": f"seed={k}"}) + "\n"
                                for k in range(args.items)))
        spec = f"jsonl:{rows}"
        serial_s, serial = score_once(spec, args.items, 1, args.latency, Path(tmp) / "a")
        wide_s, wide = score_once(spec, args.items, args.concurrency, args.latency,
                                  Path(tmp) / "b")
    assert wide.to_json() == serial.to_json(), "concurrent scores differ from serial"
    assert len(serial.outcomes) == args.items
    print(f"{args.items} items, one student call each, latency {args.latency * 1000:.0f} ms")
    print(f"concurrency 1: {serial_s:.2f} s")
    print(f"concurrency {args.concurrency}: {wide_s:.2f} s")
    print(f"ratio serial / concurrent: {serial_s / wide_s:.2f} (goal >= 4)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
