"""The execution instrument on warm sandboxes: one check's program leaves nothing for the next.

The checks of a run go through one process-wide pool of warm bwrap sandboxes
(`sandbox_for("bwrap")`). A candidate that plants state everywhere it can write is
checked first; a correct program is checked next in the same warm sandbox, by checks
that fail if any of that state is there. Its proof and its verdict are its own.
"""

from __future__ import annotations

import threading

import pytest

from tether.core.artifact import Artifact
from tether.core.task import Task
from tether.instruments.base import InstrumentEnv, build_instrument
from tether.sandbox import BwrapSandbox
from tether.systems.code.sandboxed_python import sandbox_for

PLANT = r"""
import ctypes, os, subprocess
for path in ("planted", os.path.expanduser("~/planted"), "/tmp/planted", "/dev/shm/planted"):
    open(path, "w").write("from an earlier check")
subprocess.Popen(["sh", "-c", "while true; do touch /tmp/late; sleep 0.05; done"],
                 start_new_session=True)
ctypes.CDLL(None).shmget(0x5EED, 4096, 0o1600)
os.environ["PLANTED"] = "1"

def add(a, b):
    return a + b
"""

LOOK = r"""
import ctypes, os, time
time.sleep(0.2)  # a daemon left behind would have touched /tmp/late by now
assert not os.path.exists("planted"), os.listdir(".")
assert not os.path.exists(os.path.expanduser("~/planted"))
assert os.listdir("/tmp") == [], os.listdir("/tmp")
assert os.listdir("/dev/shm") == []
assert ctypes.CDLL(None).shmget(0x5EED, 0, 0) == -1
assert "PLANTED" not in os.environ
assert add(2, 3) == 5
"""


def _task(checks: str) -> Task:
    return Task(id="t", suite="test", prompt="write add", metric="execution",
                data={"checks": checks, "timeout_s": 10})


def _observe(program: str, checks: str):
    return build_instrument("execution").observe(Artifact(kind="program", text=program),
                                                 _task(checks), InstrumentEnv(sandbox="bwrap"))


def test_a_check_finds_nothing_an_earlier_check_planted(bwrap: BwrapSandbox) -> None:
    pool = sandbox_for("bwrap")
    planted = _observe(PLANT, "assert add(1, 1) == 2\n")
    assert planted.passed is True and planted.raw["proof"] is True
    starts = pool.starts
    clean = _observe("def add(a, b):\n    return a + b\n", LOOK)
    assert pool.starts == starts  # the same warm sandbox ran the second check
    assert clean.raw["proof"] is True and clean.passed is True, clean.defects


def test_checks_in_flight_at_once_each_have_their_own_memory_limit(
        bwrap: BwrapSandbox) -> None:
    if not bwrap.use_cgroups:
        pytest.skip("per-check memory limits need cgroups (root, a writable v1 hierarchy)")
    # 600 MB each under the execution instrument's 1024 MB: together they would not fit
    program = ("block = bytearray(600 * 1024 * 1024)\n"
               "for i in range(0, len(block), 4096):\n    block[i] = 1\n"
               "import time\ntime.sleep(1)\n")
    results = []

    def one() -> None:
        results.append(_observe(program, "assert len(block) > 0\n"))

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [o.passed for o in results] == [True, True], [o.defects for o in results]


def test_warming_up_the_execution_instrument_starts_its_sandboxes_ahead(
        bwrap: BwrapSandbox) -> None:
    import time

    from tether.instruments import warm_up

    pool = sandbox_for("bwrap")
    warm_up("execution", InstrumentEnv(sandbox="bwrap"), 2)
    for _ in range(300):  # started in the background: the call returns at once
        if len(pool._idle) >= 2:
            break
        time.sleep(0.05)
    assert len(pool._idle) >= 2
    starts = pool.starts
    results = []
    threads = [threading.Thread(target=lambda: results.append(
        _observe("def add(a, b):\n    return a + b\n", "assert add(1, 2) == 3\n")))
        for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [o.passed for o in results] == [True, True] and pool.starts == starts
    warm_up("execution", InstrumentEnv(sandbox="subprocess"), 2)  # no warm sandboxes there
