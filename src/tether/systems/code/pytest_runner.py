"""pytest-format checks: the program as solution.py, the task's test files run by pytest
inside the sandbox, one defect per failing test (with pytest's assertion message).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from typing import Any

from tether.core import Defect, Observation
from tether.errors import ConfigError
from tether.systems.code.sandboxed_python import results_name, runner_source, sandbox_for, tail

PLUGIN_MODULE = "tether_pytest_plugin"
_RESERVED = {"solution.py", f"{PLUGIN_MODULE}.py", ".tether_nonce"}


def observe_pytest(program: str, test_files: Any, *, sandbox: str = "bwrap",
                   timeout_s: float = 30.0, memory_mb: int = 1024) -> Observation:
    if not isinstance(test_files, Mapping) or not test_files:
        raise ConfigError("pytest-format checks must be a dict {filename: test file text}")
    clash = _RESERVED & set(test_files)
    if clash:
        raise ConfigError(f"pytest test files may not be named {sorted(clash)}")
    nonce = secrets.token_hex(16)
    files = {"solution.py": program, f"{PLUGIN_MODULE}.py": runner_source("_pytest_plugin.py"),
             ".tether_nonce": nonce, **{str(k): str(v) for k, v in test_files.items()}}
    argv = ["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", PLUGIN_MODULE,
            "-o", "addopts=", "--rootdir=.", *sorted(str(k) for k in test_files)]
    env = {"PYTHONPATH": ".", "PYTHONDONTWRITEBYTECODE": "1",
           "TETHER_ISOLATED": "1" if sandbox == "bwrap" else "0"}
    result = sandbox_for(sandbox).run(argv, files=files, stdin=b"", timeout_s=timeout_s,
                                      memory_mb=memory_mb, max_procs=64, env=env)
    raw: dict[str, Any] = {
        "format": "pytest", "returncode": result.returncode,
        "killed_reason": result.killed_reason, "stdout_tail": tail(result.stdout),
        "stderr_tail": tail(result.stderr), "sandbox": sandbox,
        "sandbox_duration_s": round(result.duration_s, 6)}
    data = _verified(result.files_out.get(results_name(nonce)), nonce)
    if data is None:
        if "No module named pytest" in result.stderr:
            raise ConfigError("pytest is not importable by the sandbox's python3",
                              hint="apt-get install python3-pytest (scripts/setup.sh does)")
        outcome = "timeout" if result.timed_out else "no_proof"
        raw.update(proof=False, outcome=outcome)
        defect = Defect(kind=outcome, message="pytest did not finish: "
                        + ("time limit exceeded" if result.timed_out else "no proof that the "
                           "tests ran (the process exited or was killed)"),
                        evidence={"stdout_tail": raw["stdout_tail"][-600:]})
        return Observation(instrument="execution", version="1", grounded=True, score=0.0,
                           passed=False, defects=[defect], raw=raw)
    tests = [t for t in data["tests"] if t["when"] == "call" or t["outcome"] != "passed"]
    by_node: dict[str, dict[str, Any]] = {}
    for t in tests:  # a test that failed in setup or teardown counts as failed
        prev = by_node.get(t["nodeid"])
        if prev is None or prev["outcome"] == "passed":
            by_node[t["nodeid"]] = t
    n_passed = sum(t["outcome"] == "passed" for t in by_node.values())
    defects = [Defect(kind="collect_error", message=f"collecting {e['nodeid']} failed",
                      location=e["nodeid"], evidence={"longrepr": e["message"]})
               for e in data["collect_errors"]]
    for t in by_node.values():
        if t["outcome"] == "failed":
            defects.append(Defect(
                kind="failed_test", message=f"{t['nodeid']} failed ({t['when']}): {t['message']}",
                location=f"{t['file']}:{t['line']}",
                evidence={"nodeid": t["nodeid"], "longrepr": t["longrepr"]}))
    total = len(by_node)
    passed = (data["exitstatus"] == 0 and total > 0 and n_passed == total
              and not data["collect_errors"])
    raw.update(proof=True, outcome="completed", exitstatus=data["exitstatus"],
               tests=list(by_node.values()), n_checks=total, n_passed=n_passed)
    return Observation(instrument="execution", version="1", grounded=True,
                       score=n_passed / total if total else 0.0, passed=passed,
                       defects=defects, raw=raw)


def _verified(blob: bytes | None, nonce: str) -> dict[str, Any] | None:
    if blob is None:
        return None
    try:
        data = json.loads(blob)
    except ValueError:
        return None
    return data if isinstance(data, dict) and data.get("nonce") == nonce else None
