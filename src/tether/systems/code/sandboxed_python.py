"""Running Python in the sandbox for the code instruments: the study's whole-script rule
and the per-check runner, with the proof check that makes the runner's verdict count.
"""

from __future__ import annotations

import functools
import hashlib
import json
import secrets
import threading
from dataclasses import dataclass
from importlib import resources
from typing import Any

from tether.sandbox import Sandbox, SandboxError, SandboxResult, WarmPool, get_sandbox, warm_or_cold

#: the study's verdict timeout (seconds) for program + checks.
STUDY_TIMEOUT_S = 30.0
RUNNER_FILE = ".tether_runner.py"
PLAN_FILE = ".tether_plan.json"
TAIL_CHARS = 2000
_lock = threading.Lock()


@functools.cache
def _cached_sandbox(name: str) -> WarmPool | Sandbox:
    return warm_or_cold(get_sandbox(name))


def sandbox_for(name: str) -> WarmPool | Sandbox:
    """One runner per backend for the process: bwrap's is a pool of warm sandboxes (a
    check costs a fork and an exec, not a sandbox's start: tether.sandbox.warm); the
    unsafe subprocess backend runs each command as it comes."""
    with _lock:
        return _cached_sandbox(name)


def runner_source(name: str = "_check_runner.py") -> str:
    return resources.files("tether.systems.code").joinpath(name).read_text()


def tail(text: str, limit: int = TAIL_CHARS) -> str:
    return text if len(text) <= limit else f"...[{len(text) - limit} chars]\n" + text[-limit:]


@dataclass(frozen=True)
class ScriptVerdict:
    """The study's rule: program + "\\n" + checks as one script; pass = exit status 0."""

    passed: bool
    result: SandboxResult


def run_whole_script(program: str, checks: str, *, sandbox: str = "bwrap",
                     timeout_s: float = STUDY_TIMEOUT_S, memory_mb: int = 2048) -> ScriptVerdict:
    """Run `python3 script.py` in the sandbox; raises SandboxError on infrastructure failure."""
    result = sandbox_for(sandbox).run(
        ["python3", "script.py"], files={"script.py": program + "\n" + checks},
        stdin=b"", timeout_s=timeout_s, memory_mb=memory_mb, max_procs=64)
    return ScriptVerdict(passed=result.returncode == 0 and not result.timed_out, result=result)


def results_name(nonce: str) -> str:
    return ".tether-results-" + hashlib.sha256(nonce.encode()).hexdigest()[:32] + ".json"


def run_check_runner(program: str, checks: str, *, sandbox: str = "bwrap",
                     timeout_s: float = STUDY_TIMEOUT_S, memory_mb: int = 1024,
                     whole_script: str = "auto",
                     check_timeout_s: float | None = None) -> dict[str, Any]:
    """Run the per-check runner once; return its verified results plus process facts.

    The returned dict has "proof": True only when the results file carries this run's
    nonce. Without proof, "outcome" is "no_proof" (the candidate ended the runner).
    A failure of the runner itself (not the candidate) raises SandboxError.
    """
    nonce = secrets.token_hex(16)
    plan = {"program_file": "candidate.py", "checks_file": "checks.py",
            "timeout_s": timeout_s, "whole_script": whole_script,
            # A per-check limit only helps below the phase's own limit.
            "check_timeout_s": check_timeout_s
            if check_timeout_s is not None and check_timeout_s < timeout_s else None,
            "isolated": sandbox == "bwrap"}
    files = {RUNNER_FILE: runner_source(), PLAN_FILE: json.dumps(plan),
             "candidate.py": program, "checks.py": checks}
    # Both phases have their own deadline inside; this outer one is the backstop.
    runner = sandbox_for(sandbox)
    argv = ["python3", RUNNER_FILE, PLAN_FILE]
    limits: dict[str, Any] = {"files": files, "stdin": nonce.encode(),
                              "timeout_s": 2 * timeout_s + 5, "memory_mb": memory_mb,
                              "max_procs": 64}
    # the runner is ours: a warm sandbox runs it in a fork of its interpreter
    result = (runner.run(argv, python_in_fork=True, **limits) if isinstance(runner, WarmPool)
              else runner.run(argv, **limits))
    facts = {"returncode": result.returncode, "killed_reason": result.killed_reason,
             "stdout_tail": tail(result.stdout), "stderr_tail": tail(result.stderr),
             "sandbox": sandbox, "sandbox_duration_s": round(result.duration_s, 6)}
    blob = result.files_out.get(results_name(nonce))
    data: dict[str, Any] | None = None
    if blob is not None:
        try:
            data = json.loads(blob)
        except ValueError:
            data = None
    if data is None or data.get("nonce") != nonce:
        if result.returncode == 1 and RUNNER_FILE in result.stderr and "Traceback" in result.stderr:
            raise SandboxError(f"check runner failed: {tail(result.stderr, 600)}")
        return {"proof": False, "outcome": "no_proof", **facts}
    data.pop("nonce")
    return {"proof": True, **data, **facts}
