"""`tether ARGS...` with timers on the run path, for the profile of benchmarks/whole_eval.py.

    python whole_eval_probe.py OUT.json ARGS...

runs tether's command line with ARGS as `tether` would, and at exit writes OUT.json:
`marks` (time.monotonic() at named points: the probe's first line, the command line
imported, tether's exit handlers reached), `spans` (per timed function: each call's
start and end, so the benchmark can tell work between replies from work at the ends)
and `cpu` (CPU seconds of the tether process, and of the children it had reaped by
then: the sandboxes).
time.monotonic() is one clock for every process of the machine, so the marks line up
with the benchmark's own (the process start) and the stand-in endpoint's.

The timers are put on each module right after it is imported (an import hook), so
the command loads its modules when and as it always does; nothing else changes.
"""

import time

T0 = time.monotonic()

import atexit  # noqa: E402 (the first mark is taken before anything is imported)
import functools  # noqa: E402
import importlib.abc  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from typing import Any  # noqa: E402

#: module -> (attribute path, span name): what is timed, where it lives
TIMED = {
    "tether.runs.launch": [("prepare", "prepare"), ("execute", "execute")],
    "tether.suites.registry": [("load_suite", "suite loading")],
    "tether.runs.trial_runner": [("run_trial", "trial")],
    "tether.models.openai_backend": [("OpenAICompatibleModel._sample", "model call")],
    "tether.systems.code.sandboxed_python": [("run_check_runner", "check")],
    "tether.sandbox.warm": [("WarmSlot.__init__", "sandbox start")],
    "tether.sandbox.base": [("Sandbox.run", "sandbox start and run (one-shot)")],
    "tether.runs.store": [("RunStore.commit_trial", "store commit")],
    "tether.runs.progress": [("RunProgress.update", "progress")],
}
_spans: dict[str, list[tuple[float, float]]] = {}
_lock = threading.Lock()


def _timed(fn: Any, name: str) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.monotonic()
        try:
            return fn(*args, **kwargs)
        finally:
            end = time.monotonic()
            with _lock:
                _spans.setdefault(name, []).append((start, end))
    return wrapper


def _patch(module: Any) -> None:
    for path, name in TIMED.get(module.__name__, []):
        owner_name, _, attr = path.rpartition(".")
        owner = getattr(module, owner_name) if owner_name else module
        setattr(owner, attr, _timed(getattr(owner, attr), name))


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the real loader of a timed module so that the
    timers go on as soon as the module has run, before anyone imports from it."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in TIMED:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                exec_module = spec.loader.exec_module

                def run_then_patch(module: Any, exec_module: Any = exec_module) -> None:
                    exec_module(module)
                    _patch(module)

                spec.loader.exec_module = run_then_patch  # type: ignore[method-assign]
                return spec
        return None


def _write(path: str, marks: dict[str, float]) -> None:
    marks["atexit"] = time.monotonic()
    with _lock:
        spans = {k: list(v) for k, v in _spans.items()}
    cpu = {}
    for who, which in (("tether process", resource.RUSAGE_SELF),
                       ("its children so far", resource.RUSAGE_CHILDREN)):
        usage = resource.getrusage(which)
        cpu[who] = usage.ru_utime + usage.ru_stime
    with open(path, "w") as fh:
        json.dump({"marks": marks, "spans": spans, "cpu": cpu}, fh)


def main() -> None:
    out, args = sys.argv[1], sys.argv[2:]
    marks = {"probe_start": T0}
    atexit.register(_write, out, marks)
    sys.meta_path.insert(0, _AfterImport())
    from tether.cli import main as cli

    marks["cli_imported"] = time.monotonic()
    cli(args, prog_name="tether")


if __name__ == "__main__":
    main()
