"""A compile's overhead outside model calls and OCR, as a share of its wall time
(goal: <= 10% with the embedded student and a warm OCR cache).

One `tether compile` on `docs` with the embedded student (local/smollm2-135m on one
thread by default: the machine is shared) and the competent scripted teacher (a test
double: no model time of its own), small splits. The persistent OCR cache is warmed
first (untimed) and the in-process memo is then cleared, so the timed build starts as a
fresh process with a warm cache does: each page drawn once to key the cache, then
memo hits. Timed: the whole compile (wall), every student and teacher `generate` call,
and every OCR lookup (`ocr_text`). The overhead is wall - model - OCR: admissibility
(hook whitelist, audits, the two smoke runs in the sandbox), hooks in the sandboxed
worker, observation building, scoring, evidence and the run store's commits. The load
average is printed before and after (the numbers mean little on a loaded machine
without it).

    nice -n 5 .venv/bin/python benchmarks/compile_overhead.py \
        [--probe 10 --validation 10 --test 10 --student 'local/smollm2-135m;n_threads=1'
         --comparators h0,oneshot,human_recipe,student_routed,cot_vote]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tether.models import parse_model  # noqa: E402
from tether.models.base import GenerateParams
from tether.systems.compile.compiler import CompileConfig, Compiler  # noqa: E402
from tether.systems.compile.compiler.config import COMPARATORS  # noqa: E402
from tether.systems.compile.tasks import setting_of  # noqa: E402

TEACHER = "scripted:tether.testing.scripted_teacher:competent"


class Timed:
    """A model proxy that adds up the seconds spent in generate."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.model_id = model.model_id
        self.seconds = 0.0
        self.calls = 0

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        self.calls += 1
        try:
            return self.model.generate(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probe", type=int, default=10)
    parser.add_argument("--validation", type=int, default=10)
    parser.add_argument("--test", type=int, default=10)
    parser.add_argument("--student", default="local/smollm2-135m;n_threads=1")
    parser.add_argument("--comparators", default=",".join(COMPARATORS),
                        help="the compile's test arms beside bare and the selection")
    args = parser.parse_args()
    print(f"load average before: {_load()}", flush=True)
    setting = setting_of("docs")
    config = CompileConfig(setting="docs", teacher=TEACHER, student=args.student,
                           probe=args.probe, validation=args.validation, test=args.test,
                           rounds=1, comparators=args.comparators)
    for items in setting.splits(0, config.sizes).values():
        for item in items:
            setting.ocr_text(item)  # warm the OCR cache (untimed)
    setting.engine.clear_memo()  # a fresh process: the memo starts empty
    ocr_seconds = 0.0
    cls = type(setting)  # the compiler builds its own instance: time the class's method
    plain = cls.ocr_text

    def timed_ocr(self: Any, item: Any) -> str:
        nonlocal ocr_seconds
        start = time.perf_counter()
        try:
            return plain(self, item)
        finally:
            ocr_seconds += time.perf_counter() - start

    cls.ocr_text = timed_ocr  # type: ignore[method-assign]
    student, teacher = Timed(parse_model(args.student)), Timed(parse_model(TEACHER))
    # load the model (untimed)
    student.generate([{"role": "user", "content": "hi"}], GenerateParams(max_tokens=1))
    student.seconds, student.calls = 0.0, 0
    from tether.systems.compile.settings.ocr import default_engine
    calls_before, renders_before = default_engine().calls, default_engine().renders
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        result = Compiler(config, out=out, teacher=teacher, student=student).run()  # type: ignore[arg-type]
        wall = time.perf_counter() - start
    model = student.seconds + teacher.seconds
    overhead = wall - model - ocr_seconds
    print(f"splits {args.probe}/{args.validation}/{args.test}, rounds 1, "
          f"comparators {args.comparators or 'none'}, "
          f"decisions {[r['decision'] for r in result['rounds']]}")
    print(f"wall {wall:.2f} s; student {student.seconds:.2f} s; teacher {teacher.seconds:.3f} s; "
          f"OCR (cached) {ocr_seconds:.3f} s; "
          f"tesseract runs {default_engine().calls - calls_before}; "
          f"pages drawn {default_engine().renders - renders_before}")
    print(f"overhead outside model calls and OCR: {overhead:.2f} s = "
          f"{100 * overhead / wall:.1f}% of wall time (goal <= 10%)")
    calls = student.calls if hasattr(student, "calls") else 0
    print(f"student calls {calls}; overhead per student call {overhead / max(calls, 1):.3f} s")
    print(f"load average after: {_load()}")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
