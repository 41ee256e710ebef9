"""The execution instrument: per-check results, outcomes, and forged passes that fail."""

from __future__ import annotations

import warnings

import pytest

from tether.core.artifact import Artifact
from tether.core.task import Task
from tether.instruments.base import InstrumentEnv, build_instrument, observe_safely
from tether.sandbox import SandboxUnavailable, get_sandbox
from tether.systems.code.sandboxed_python import run_whole_script

CHECKS = """\
import math
x = 3
assert add(1, 2) == 3
assert add(20, 1) == 21, "big numbers"
for i in range(3):
    assert add(i, 0) == i
assert add(None, 1) == 1
assert math.isclose(add(0.1, 0.2), 0.3)
"""
BUGGY = "def add(a, b):\n    return a + b if a < 10 else a - b\n"
CORRECT = "def add(a, b):\n    return (a or 0) + b\n"


@pytest.fixture(scope="module")
def bwrap_env() -> InstrumentEnv:
    try:
        get_sandbox("bwrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bwrap unavailable: {exc}")
    return InstrumentEnv(sandbox="bwrap")


@pytest.fixture(scope="module")
def fast_env() -> InstrumentEnv:
    """The unsafe backend, for tests where isolation is not what is tested."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        get_sandbox("subprocess")
    return InstrumentEnv(sandbox="subprocess")


def task(checks: str = CHECKS, **data) -> Task:
    return Task(id="t", suite="test", prompt="write add", metric="execution",
                data={"checks": checks, "timeout_s": 5, **data})


def observe(program: str, env: InstrumentEnv, spec: str = "execution", **data):
    return build_instrument(spec).observe(Artifact(kind="program", text=program),
                                          task(**data), env)


def test_every_failing_check_is_listed_with_operands(bwrap_env):
    obs = observe(BUGGY, bwrap_env)
    assert obs.grounded and obs.passed is False and obs.error is None
    assert obs.score == pytest.approx(3 / 5)  # lines 3, 5 (the loop) and 8 pass
    by_line = {d.location: d for d in obs.defects}
    assert set(by_line) == {"line 4", "line 7"}
    big = by_line["line 4"]
    assert big.kind == "failed_check"
    assert big.evidence["actual"] == "19" and big.evidence["expected"] == "21"
    assert "big numbers" in big.message
    assert big.evidence["source"].startswith("assert add(20, 1) == 21")
    assert "TypeError" in by_line["line 7"].evidence["error"]
    assert obs.raw["outcome"] == "completed" and obs.raw["proof"] is True
    assert [i["status"] for i in obs.raw["items"]][:3] == ["passed", "passed", "passed"]


def test_correct_program_passes_with_whole_script_verdict(bwrap_env):
    obs = observe(CORRECT, bwrap_env)
    assert obs.passed is True and obs.score == 1.0 and obs.defects == []
    assert obs.raw["whole_script"]["passed"] is True


def test_visible_checks_option(fast_env):
    obs = observe(BUGGY, fast_env, "execution;checks=visible",
                  visible_checks="assert add(1, 2) == 3\n")
    assert obs.passed is True and obs.raw["n_checks"] == 1


@pytest.mark.parametrize("program, outcome", [
    ("def add(a, b)\n    return a + b\n", "syntax_error"),
    ("import no_such_module_xyz\n", "import_error"),
    ("raise RuntimeError('boom')\n", "program_error"),
    ("import sys\nsys.exit(0)\n", "program_exit"),
    ("while True:\n    pass\n", "timeout"),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", "crashed"),
])
def test_outcomes_are_distinct(fast_env, program, outcome):
    obs = observe(program, fast_env, timeout_s=1)
    assert obs.passed is False and obs.raw["outcome"] == outcome
    assert obs.defects[0].kind == outcome
    assert obs.score == 0.0


def test_syntax_error_and_timeout_locations(fast_env):
    obs = observe("def add(a, b)\n    return 1\n", fast_env)
    assert obs.defects[0].location == "line 1"
    looping = "def add(a, b):\n    while a is None:\n        pass\n    return a + b\n"
    obs = observe(looping, fast_env, timeout_s=1)
    assert obs.raw["outcome"] == "timeout"
    assert obs.defects[0].location == "line 7"  # the check that hung
    assert obs.score == pytest.approx(3 / 5)  # the checks before it still count


FORGERIES = {
    # exits "successfully" before any check can fail
    "sys_exit_in_check": CORRECT.replace("(a or 0)", "a") + (
        "import sys\n_orig = add\n"
        "def add(a, b):\n    if a is None:\n        sys.exit(0)\n    return _orig(a, b)\n"),
    "os_exit_in_check": BUGGY + (
        "import os\n_orig = add\n"
        "def add(a, b):\n    if a == 20:\n        os._exit(0)\n    return _orig(a, b)\n"),
    "kill_parent": BUGGY + "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n",
    "patch_builtins": BUGGY + (
        "import builtins, json\n"
        "builtins.print = lambda *a, **k: None\n"
        "json.dumps = lambda *a, **k: '{\"event\": \"done\"}'\n"
        "builtins.AssertionError = type('Never', (Exception,), {})\n"),
    "write_fake_results": BUGGY + (
        "import glob, json\n"
        "for name in ['.tether-results-' + 'x' * 32 + '.json']:\n"
        "    open(name, 'w').write(json.dumps({'nonce': 'guess', 'outcome': 'completed'}))\n"),
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forged_passes_do_not_pass(bwrap_env, name):
    obs = observe(FORGERIES[name], bwrap_env)
    assert obs.error is None
    assert obs.passed is False, (name, obs.raw.get("outcome"), obs.defects)


def test_kill_parent_is_no_proof(bwrap_env):
    obs = observe(FORGERIES["kill_parent"], bwrap_env)
    assert obs.raw["outcome"] == "no_proof" and obs.raw["proof"] is False
    assert obs.defects[0].kind == "no_proof"


def test_whole_script_failure_alone_fails(fast_env):
    # Each check passes on its own, but run in sequence the second sees the first's effect.
    checks = "assert pop() == 1\nassert pop() == 2\n"
    program = "_n = [0]\ndef pop():\n    _n[0] += 1\n    return 1 if _n[0] == 1 else 2\n"
    obs = observe(program, fast_env, checks=checks)
    assert obs.passed is True  # sequential state is the same in both runs here
    stateful = "import atexit, os\natexit.register(lambda: os._exit(3))\n" + program
    obs = observe(stateful, fast_env, checks=checks)
    assert obs.score == 1.0 and obs.passed is False
    assert obs.defects[-1].kind == "whole_script_failed"


def test_infrastructure_failure_is_an_error_not_a_score():
    obs = observe_safely(build_instrument("execution"), Artifact(kind="program", text=CORRECT),
                         task(), InstrumentEnv(sandbox="no-such-backend"))
    assert obs.error and obs.score is None and obs.passed is None


def test_study_rule_whole_script(bwrap_env):
    assert run_whole_script(CORRECT, CHECKS, timeout_s=5).passed is True
    assert run_whole_script(BUGGY, CHECKS, timeout_s=5).passed is False
    # The study's rule alone is fooled by sys.exit(0): that is why `passed` needs proof.
    assert run_whole_script("import sys\nsys.exit(0)\n", CHECKS, timeout_s=5).passed is True
    assert observe("import sys\nsys.exit(0)\n", bwrap_env).passed is False


SNOOP = BUGGY + """
import os, sys
found = []
frame = sys._getframe()
while frame is not None:  # every runner frame above us: its locals and globals
    for value in [*frame.f_locals.values(), *frame.f_globals.values()]:
        if isinstance(value, (bytes, bytearray)):
            found.append(bytes(value))
        elif isinstance(value, str):
            found.append(value.encode())
    frame = frame.f_back
for path in (f"/proc/{os.getppid()}/mem", f"/proc/{os.getppid()}/fd/0", "/dev/stdin"):
    try:
        with open(path, "rb") as fh:
            found.append(fh.read(1 << 16))
    except OSError as exc:
        print("denied", path, type(exc).__name__)
import re
hexes = sorted({m.decode() for blob in found for m in re.findall(rb"[0-9a-f]{32}", blob)})
print("scanned", len(found), "hex tokens:", hexes[:50])
"""


def test_candidate_cannot_find_the_nonce(bwrap_env, monkeypatch):
    import tether.systems.code.sandboxed_python as sp

    nonce = "feedface" * 4
    monkeypatch.setattr(sp.secrets, "token_hex", lambda n: nonce)
    obs = observe(SNOOP, bwrap_env)
    assert obs.raw["proof"] is True  # the runner itself still proved its run
    out = obs.raw["stdout_tail"]
    assert "denied" in out and "scanned" in out and nonce not in out


def test_heldout_fixed_code_passes_and_buggy_code_fails(bwrap_env, interaction_scaling_dir):
    import json

    tasks = json.loads((interaction_scaling_dir / "tasks/code/code_tasks_heldout_v2.json")
                       .read_text())
    inst = build_instrument("execution")
    fixed = buggy = 0
    for t in tasks:
        task = Task(id=t["task_id"], suite="heldout", prompt="", metric="execution",
                    data={"checks": t["test_code"]})
        ok = inst.observe(Artifact(kind="program", text=t["fixed_code"]), task, bwrap_env)
        bad = inst.observe(Artifact(kind="program", text=t["buggy_code"]), task, bwrap_env)
        fixed += ok.passed and ok.score == 1.0
        buggy += (not bad.passed) and bad.score < 1.0 and bool(bad.defects)
    assert (fixed, buggy) == (32, 32)


def test_helper_calls_are_checks_with_operands(fast_env):
    checks = ("def check(x, want):\n    got = double(x)\n    assert got == want, f'for {x}'\n\n"
              "check(1, 2)\ncheck(3, 6)\nfor v in [5]:\n    assert double(v) == 10\n"
              "print(double(None))\n")
    obs = observe("def double(x):\n    return x * 2 if x != 3 else 7\n", fast_env, checks=checks)
    kinds = [(i["line"], i["kind"]) for i in obs.raw["items"]]
    assert kinds == [(1, "setup"), (5, "check"), (6, "check"), (7, "check"), (9, "setup")]
    failed = [d for d in obs.defects if d.kind == "failed_check"]
    (d,) = failed
    assert d.location == "line 3"  # the assert inside the helper
    assert (d.evidence["actual"], d.evidence["expected"]) == ("7", "6")
    assert "for 3" in d.message
    assert [d.kind for d in obs.defects if d.kind != "failed_check"] == ["setup_error"]
    assert obs.score == pytest.approx(2 / 4)  # 3 checks, 2 pass, 1 setup raised


def test_patched_eval_and_exec_do_not_turn_checks_green(fast_env):
    forged = BUGGY + ("import builtins\nbuiltins.eval = lambda *a, **k: 1\n"
                      "builtins.exec = lambda *a, **k: None\n")
    obs = observe(forged, fast_env)
    assert obs.passed is False and obs.score == pytest.approx(3 / 5)
    assert {d.location for d in obs.defects} == {"line 4", "line 7"}


def test_program_sees_a_main_module_like_python3_gives_it(fast_env):
    program = ("import sys, pickle, dataclasses\n"
               "@dataclasses.dataclass\nclass P:\n    x: int\n"
               "def roundtrip():\n    return pickle.loads(pickle.dumps(P(3))).x\n"
               "ARGV = list(sys.argv)\nFILE = __file__\n")
    checks = ("assert roundtrip() == 3\nassert ARGV == ['candidate.py'] or ARGV == ['script.py']\n"
              "assert FILE.endswith(('candidate.py', 'script.py'))\n")
    obs = observe(program, fast_env, checks=checks)
    assert obs.passed is True, obs.defects


def test_sandbox_error_becomes_an_error_observation(monkeypatch):
    import tether.systems.code.sandboxed_python as sp
    from tether.sandbox import SandboxError

    class BrokenSandbox:
        def run(self, *args, **kwargs):
            raise SandboxError("cgroup vanished")

    monkeypatch.setattr(sp, "sandbox_for", lambda name: BrokenSandbox())
    obs = observe_safely(build_instrument("execution"), Artifact(kind="program", text=CORRECT),
                         task(), InstrumentEnv(sandbox="bwrap"))
    assert obs.error == "SandboxError: cgroup vanished"
    assert obs.score is None and obs.passed is None and obs.defects == []


HANGS_ON_NONE = "def add(a, b):\n    while a is None:\n        pass\n    return a + b\n"


def test_a_hanging_check_is_cut_off_and_the_later_checks_still_run(fast_env):
    obs = observe(HANGS_ON_NONE, fast_env, timeout_s=8, check_timeout_s=1)
    assert obs.raw["outcome"] == "completed" and obs.passed is False
    by_line = {it["line"]: it["status"] for it in obs.raw["items"] if it["kind"] == "check"}
    assert by_line == {3: "passed", 4: "passed", 5: "passed", 7: "timeout", 8: "passed"}
    (hung,) = [d for d in obs.defects if d.kind == "check_timeout"]
    assert hung.location == "line 7" and "per-check limit of 1 s" in hung.message
    assert obs.score == pytest.approx(4 / 5)
    assert len(obs.raw["phase"]["hung_checks"]) == 1


def test_a_slow_check_that_finishes_within_the_task_limit_still_passes(fast_env):
    slow = "import time\ndef add(a, b):\n    if a is None:\n        time.sleep(1.5)\n" \
           "    return (a or 0) + b\n"
    obs = observe(slow, fast_env, timeout_s=8, check_timeout_s=1)
    assert obs.passed is True and obs.score == 1.0 and obs.defects == []
    assert [it["line"] for it in obs.raw["items"] if it.get("slow")] == [7]
    assert obs.raw["whole_script"]["passed"] is True


def test_after_three_hanging_checks_the_rest_do_not_run(fast_env):
    checks = "".join(f"assert add(None, {i}) == {i}\n" for i in range(5))
    obs = observe(HANGS_ON_NONE, fast_env, checks=checks, timeout_s=20, check_timeout_s=0.5)
    assert obs.raw["outcome"] == "too_many_hung_checks" and obs.passed is False
    statuses = [it["status"] for it in obs.raw["items"]]
    assert statuses == ["timeout"] * 3 + ["not_run"] * 2
    assert obs.defects[0].kind == "too_many_hung_checks"


def test_a_per_check_limit_above_the_task_limit_changes_nothing(fast_env):
    obs = observe(HANGS_ON_NONE, fast_env, timeout_s=1, check_timeout_s=5)
    assert obs.raw["outcome"] == "timeout" and obs.defects[0].location == "line 7"
