"""SandboxedWorker: one long-lived sandboxed interpreter answering JSON calls.

Each test drives one behaviour (round trip, deadline, crash, exception, state, output
flood, memory bomb, bad values) and checks the reply kind and the start/restart
counts; tests that kill a child also check that none of its processes survive.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import tether
from tether.sandbox import (
    BwrapSandbox,
    Sandbox,
    SandboxedWorker,
    SandboxError,
    WorkerLimits,
)

from .conftest import processes_matching

PROGRAM = """
import os, subprocess, sys, time

calls = 0

def add(a, b):
    return a + b

def echo(payload):
    return payload

def bump():
    global calls
    seen = calls
    calls += 1
    return seen

def shout(text):
    print(text)
    print("to stderr", file=sys.stderr)
    return len(text)

def spawn_and_hang(token):
    subprocess.Popen(["sh", "-c", f"sleep 1000; : {token}"])
    time.sleep(1000)

def spawn(token):
    return subprocess.Popen(["sh", "-c", f"sleep 1000; : {token}"]).pid > 0

def exit_now(code):
    os._exit(code)

def segfault():
    import ctypes
    ctypes.string_at(0)

class BadInput(Exception):
    pass

def fail(n):
    raise BadInput(f"bad input {n}")

def flood(lines):
    for i in range(lines):
        print(i)
    return "done"

def flood_forever():
    while True:
        print("y" * 100)

def eat_memory():
    chunks = []
    while True:
        chunks.append(b"x" * (32 << 20))

def a_set():
    return {1, 2}

def ask():
    return input()

def forge_reply():
    os.write(int(sys.argv[1]), b'{"id": 999, "ok": true, "value": "forged"}\\n')
    return "real"
"""


@pytest.fixture
def make_worker() -> Iterator[Callable[..., SandboxedWorker]]:
    made: list[SandboxedWorker] = []

    def make(box: Sandbox, program: str = PROGRAM, **kwargs: object) -> SandboxedWorker:
        worker = SandboxedWorker(box, program, **kwargs)  # type: ignore[arg-type]
        made.append(worker)
        return worker

    yield make
    for worker in made:
        worker.close()


@pytest.fixture(params=["bwrap", "subprocess"])
def box(request: pytest.FixtureRequest) -> Sandbox:
    """Both backends, for behaviour that must not depend on isolation."""
    return request.getfixturevalue("bwrap" if request.param == "bwrap" else "unsafe")


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


def test_round_trip_starts_once(box: Sandbox, make_worker) -> None:
    worker = make_worker(box)
    assert worker.pid is None and worker.starts == 0  # started lazily
    assert worker.call("add", 2, 3).value == 5
    payload = {"a": [1, 2.5, None, True], "b": {"c": "é"}}
    reply = worker.call("echo", payload)
    assert reply.ok and reply.kind is None and reply.value == payload
    assert worker.starts == 1 and worker.restarts == 0


def test_a_worker_outlives_the_thread_that_started_it(bwrap, make_worker) -> None:
    # --die-with-parent follows the forking *thread*: a worker first called from a
    # trial's thread that then ended was killed between calls, and the next call (a
    # shared hook worker's, in the next run of the same process) met a dead worker
    worker = make_worker(bwrap)
    first = threading.Thread(target=lambda: worker.call("add", 1, 1))
    first.start()
    first.join()
    pid = worker.pid
    assert pid is not None and not gone(pid)
    reply = worker.call("add", 2, 3)
    assert reply.ok and reply.value == 5, reply
    assert worker.starts == 1 and worker.restarts == 0 and worker.pid == pid


def test_prints_are_captured_per_call_and_cannot_forge_replies(bwrap, make_worker) -> None:
    worker = make_worker(bwrap)
    reply = worker.call("shout", '{"id": 0, "ok": true, "value": 42}')
    assert reply.value == 34
    assert reply.stdout == '{"id": 0, "ok": true, "value": 42}\n'
    assert reply.stderr == "to stderr\n"
    assert worker.call("add", 1, 1).stdout == ""  # nothing carried into the next call


def test_hanging_call_times_out_kills_everything_and_restarts(
    bwrap: BwrapSandbox, make_worker, token: str, assert_no_leftovers
) -> None:
    worker = make_worker(bwrap)
    assert worker.call("add", 1, 1).ok
    first_pid = worker.pid
    reply = worker.call("spawn_and_hang", token, timeout_s=1)
    assert not reply.ok and reply.kind == "timeout"
    assert worker.pid is None
    assert first_pid is not None and gone(first_pid)
    assert_no_leftovers(token)  # the program's own child went with it
    assert worker.call("add", 2, 2).value == 4
    assert worker.starts == 2 and worker.restarts == 1


def test_close_kills_background_children(bwrap, make_worker, token, assert_no_leftovers) -> None:
    with SandboxedWorker(bwrap, PROGRAM) as worker:
        assert worker.call("spawn", token).value is True
        pid = worker.pid
        workdir = worker.workdir
    assert pid is not None and gone(pid)
    assert_no_leftovers(token)
    assert not workdir.exists()
    with pytest.raises(SandboxError):
        worker.call("add", 1, 1)


HOST = """
import os, sys, time
from tether.sandbox import BwrapSandbox, SandboxedWorker
program = sys.stdin.read()
worker = SandboxedWorker(BwrapSandbox(), program)
print(worker.call("spawn", os.environ["TOKEN"]).value, flush=True)
time.sleep(1000)
"""


def test_worker_dies_with_its_host(bwrap, token: str, assert_no_leftovers) -> None:
    # No `timeout` wrapper bounds a worker's life: bwrap's --die-with-parent must.
    src = str(Path(tether.__file__).parents[1])
    host = subprocess.Popen(
        [sys.executable, "-c", HOST],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": src, "TOKEN": token},  # token not in our argv
    )
    assert host.stdin is not None and host.stdout is not None
    host.stdin.write(PROGRAM.encode())
    host.stdin.close()
    assert host.stdout.readline() == b"True\n"
    # Popen returns once the child is forked, maybe before `sh` is exec'd with the token
    # in its command line: poll (room for a loaded machine), then require it
    deadline = time.monotonic() + 30
    while not processes_matching(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_matching(token), "the sandboxed child should be running"
    host.kill()
    host.wait()
    # bwrap notices its parent is gone: a poll with room for a loaded machine, not a speed check
    assert_no_leftovers(token, within_s=30)


@pytest.mark.parametrize("call", [("exit_now", 3), ("segfault",)])
def test_crash_is_reported_and_the_next_call_restarts(box, make_worker, call) -> None:
    worker = make_worker(box)
    reply = worker.call(*call)
    assert not reply.ok and reply.kind == "crash", reply
    assert worker.pid is None
    assert worker.call("add", 1, 2).value == 3
    assert worker.restarts == 1


def test_exit_status_in_crash_message(bwrap, make_worker) -> None:
    reply = make_worker(bwrap).call("exit_now", 3)
    assert "exit status 3" in reply.message


def test_raising_call_keeps_the_worker(box: Sandbox, make_worker) -> None:
    worker = make_worker(box)
    assert worker.call("add", 0, 0).ok
    pid = worker.pid
    reply = worker.call("fail", 7)
    assert not reply.ok and reply.kind == "raised"
    assert reply.error_type == "BadInput" and reply.message == "bad input 7"
    assert 'raise BadInput(f"bad input {n}")' in reply.traceback
    assert worker.pid == pid and worker.restarts == 0
    missing = worker.call("no_such_function")
    assert missing.kind == "raised" and missing.error_type == "NameError"
    assert worker.call("add", 1, 1).value == 2 and worker.pid == pid


def test_fresh_state_by_default_persistent_on_request(box: Sandbox, make_worker) -> None:
    fresh = make_worker(box)
    assert [fresh.call("bump").value for _ in range(3)] == [0, 0, 0]
    assert [fresh.call("bump", fresh=False).value for _ in range(3)] == [0, 1, 2]
    assert fresh.call("bump").value == 0  # fresh calls do not see the persistent globals
    persistent = make_worker(box, state="persistent")
    assert [persistent.call("bump").value for _ in range(3)] == [0, 1, 2]
    assert persistent.call("bump", fresh=True).value == 0
    assert fresh.starts == persistent.starts == 1


def test_fixed_hash_seed_and_random_seed_make_calls_order_free(bwrap, make_worker) -> None:
    program = (
        "import random\n"
        "def probe():\n"
        "    return [hash('tether'), list({'a', 'b', 'c', 'd', 'e'}), random.random()]\n"
        "def draw():\n"
        "    return random.random()\n"
    )
    one, two = make_worker(bwrap, program), make_worker(bwrap, program)
    two.call("draw")  # a different history before the probe
    assert one.call("probe").value == two.call("probe").value
    assert one.call("probe").value == one.call("probe").value


def test_output_flood_neither_blocks_nor_corrupts(bwrap, make_worker) -> None:
    worker = make_worker(bwrap, limits=WorkerLimits(call_timeout_s=120))
    reply = worker.call("flood", 1_000_000)
    assert reply.ok and reply.value == "done", reply.kind
    assert reply.stdout.startswith("0\n1\n2\n") and reply.stdout.endswith("999999\n")
    assert reply.stdout_elided > 6_000_000 and len(reply.stdout) < 70_000
    assert worker.call("add", 1, 1).value == 2 and worker.restarts == 0


def test_endless_output_hits_the_output_limit(bwrap, make_worker) -> None:
    limits = WorkerLimits(hard_output_bytes=1 << 20, call_timeout_s=120)
    worker = make_worker(bwrap, limits=limits)
    reply = worker.call("flood_forever")
    assert reply.kind == "output_limit"
    assert reply.stdout_elided > 0
    assert worker.call("add", 1, 1).value == 2 and worker.restarts == 1


def test_memory_bomb_then_recovery(box: Sandbox, make_worker) -> None:
    worker = make_worker(box, limits=WorkerLimits(memory_mb=256, call_timeout_s=120))
    reply = worker.call("eat_memory")
    assert not reply.ok and reply.kind == "memory", reply
    assert worker.call("add", 1, 1).value == 2 and worker.restarts == 1


def test_unserialisable_values(box: Sandbox, make_worker) -> None:
    worker = make_worker(box)
    reply = worker.call("a_set")
    assert reply.kind == "unserialisable"
    assert "a_set returned a value JSON cannot hold" in reply.message and "set" in reply.message
    with pytest.raises(TypeError):
        worker.call("echo", object())  # the caller's bug: raised before anything is sent
    assert worker.call("echo", [1]).value == [1]
    assert worker.starts == 1


def test_program_cannot_read_the_request_stream(bwrap, make_worker) -> None:
    worker = make_worker(bwrap)
    reply = worker.call("ask")
    assert reply.kind == "raised" and reply.error_type == "EOFError"
    assert worker.call("add", 1, 1).value == 2 and worker.restarts == 0


def test_a_forged_reply_is_a_protocol_error(bwrap, make_worker) -> None:
    worker = make_worker(bwrap)
    reply = worker.call("forge_reply")
    assert reply.kind == "protocol" and reply.value is None
    assert worker.call("add", 1, 1).value == 2 and worker.restarts == 1


@pytest.mark.parametrize("program", ["def broken(:\n", "raise RuntimeError('no')\n"])
def test_a_program_that_does_not_load(bwrap, make_worker, program: str) -> None:
    worker = make_worker(bwrap, program)
    first = worker.call("anything")
    assert first.kind == "load" and first.error_type in ("SyntaxError", "RuntimeError")
    again = worker.call("anything")
    assert again.kind == "load" and again.message == first.message
    assert worker.starts == 1  # the same source fails the same way: no restart loop


def test_an_interpreter_that_cannot_start_is_an_infrastructure_error(bwrap, make_worker) -> None:
    worker = make_worker(bwrap, python="/nonexistent/python3")
    with pytest.raises(SandboxError, match="did not start"):
        worker.call("add", 1, 1)


def test_isolation_holds_inside_the_worker(bwrap: BwrapSandbox, make_worker) -> None:
    program = (
        "import os, socket\n"
        "def probe():\n"
        "    out = {'uid': os.getuid(), 'cwd': os.getcwd()}\n"
        "    open('note.txt', 'w').write('hi')\n"
        "    for path in ('/usr/x', '/etc/x'):\n"
        "        try:\n"
        "            open(path, 'w')\n"
        "            out[path] = 'written'\n"
        "        except OSError:\n"
        "            out[path] = 'refused'\n"
        "    try:\n"
        "        socket.create_connection(('1.1.1.1', 53), timeout=2)\n"
        "        out['net'] = 'connected'\n"
        "    except OSError:\n"
        "        out['net'] = 'refused'\n"
        "    return out\n"
    )
    worker = make_worker(bwrap, program)
    value = worker.call("probe").value
    assert value["uid"] != 0 and value["cwd"] == "/work"
    assert value["/usr/x"] == value["/etc/x"] == value["net"] == "refused"
    assert (worker.workdir / "note.txt").read_text() == "hi"


def test_read_only_binds_reach_the_program(bwrap, make_worker, tmp_path: Path) -> None:
    # e.g. a Blender executor binding bpy's site-packages; tmp_path is 0700 (root), so
    # this also goes through bwrap's staged copy for the unprivileged sandbox user.
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "helper.py").write_text("def triple(x):\n    return 3 * x\n")
    program = (
        "import sys\n"
        "sys.path.insert(0, '/opt/lib')\n"
        "import helper\n"
        "def run(x):\n"
        "    try:\n"
        "        open('/opt/lib/helper.py', 'a')\n"
        "        return 'writable'\n"
        "    except OSError:\n"
        "        return helper.triple(x)\n"
    )
    worker = make_worker(bwrap, program, ro_binds={str(lib): "/opt/lib"})
    assert worker.call("run", 5).value == 15


# --- isolated calls: a fork per call, strays killed, a disk quota -------------------------

ISOLATED = """
import os, subprocess, sys, time

def remember(key):
    seen = sys.modules.setdefault("hidden_state", [])
    seen.append(key)
    return len(seen)

def leave_children(token):
    # a plain child, a double fork that leaves the tree, and one that leaves the group
    subprocess.Popen(["sh", "-c", f"sleep 1000; : {token}"])
    subprocess.Popen(["sh", "-c", f"(sleep 1000; : {token}) &"])
    subprocess.Popen(["setsid", "sh", "-c", f"sleep 1000; : {token}"])
    time.sleep(0.2)
    return os.getpid()

def exit_now(code):
    os._exit(code)

def fill_disk(n):
    written = 0
    for i in range(n):
        with open(f"f{i}", "wb") as fh:
            fh.write(b"x" * (1 << 20))
        written += 1
    return written

def eat_memory():
    chunks = []
    while True:
        chunks.append(bytearray(32 << 20))
"""


def test_an_isolated_call_keeps_no_interpreter_state(bwrap, make_worker) -> None:
    worker = make_worker(bwrap, ISOLATED, isolate_calls=True)
    # sys.modules survives fresh globals; it does not survive the fork each call runs in
    assert [worker.call("remember", k).value for k in "abc"] == [1, 1, 1]
    plain = make_worker(bwrap, ISOLATED)
    assert [plain.call("remember", k).value for k in "abc"] == [1, 2, 3]


def test_children_of_an_isolated_call_do_not_outlive_it(bwrap, make_worker, token) -> None:
    worker = make_worker(bwrap, ISOLATED, isolate_calls=True)
    reply = worker.call("leave_children", token)
    assert reply.ok
    # killed before call() returned (SIGKILL lands at once; reaping is bwrap's init)
    deadline = time.monotonic() + 10
    while processes_matching(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not processes_matching(token)
    assert worker.strays_killed >= 3
    assert worker.call("remember", "x").value == 1  # the worker itself was spared
    assert worker.starts == 1


def test_an_isolated_call_that_dies_keeps_the_worker(bwrap, make_worker) -> None:
    worker = make_worker(bwrap, ISOLATED, isolate_calls=True)
    reply = worker.call("exit_now", 3)
    assert not reply.ok and reply.kind == "crash" and "exited with status 3" in reply.message
    assert worker.call("remember", "x").value == 1
    assert worker.starts == 1  # the interpreter that forked the call is intact


def test_a_memory_death_names_the_limit(bwrap, make_worker) -> None:
    for isolate in (False, True):
        worker = make_worker(bwrap, ISOLATED, isolate_calls=isolate,
                             limits=WorkerLimits(memory_mb=128))
        reply = worker.call("eat_memory")
        assert not reply.ok and reply.kind == "memory", reply
        assert "memory limit of 128 MB" in reply.message, reply.message


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a quota needs root")
def test_the_work_dir_has_a_disk_quota(bwrap, make_worker) -> None:
    from tether.sandbox.quota import is_mounted

    worker = make_worker(bwrap, ISOLATED, isolate_calls=True,
                         limits=WorkerLimits(disk_mb=8, max_file_mb=2))
    assert worker.disk_quota_mb == 8 and is_mounted(worker.workdir)
    reply = worker.call("fill_disk", 20)  # 20 files of 1 MB, each under max_file_mb
    assert not reply.ok and reply.kind == "raised" and "No space left" in reply.message
    used = sum(p.stat().st_size for p in worker.workdir.iterdir())
    assert used <= 8 << 20
    workdir = worker.workdir
    worker.close()
    assert not is_mounted(workdir) and not workdir.exists()


# Writes `line` on the reply channel as the call's only reply, then dies before the
# worker's own reply: the host reads exactly what the program chose.
SAYS = ("import os, sys\n"
        "def say(line):\n"
        "    os.write(int(sys.argv[1]), line.encode() + b'\\n')\n"
        "    os._exit(0)\n"
        "def add(a, b):\n    return a + b\n")


@pytest.mark.parametrize(("line", "why"), [
    ('{"id": 0, "ok": true, "value": 1, "path": "/etc/shadow"}',
     "malformed reply (path: Extra inputs are not permitted)"),
    ('{"id": 0, "ok": false, "kind": "raised", "message": "' + "x" * 9000 + '"}',
     "malformed reply (message: String should have at most 8000 characters)"),
    ('{"id": true, "ok": true, "value": 1}', "malformed reply (id:"),
    ('{"id": 0, "ok": "yes", "value": 1}', "malformed reply (ok:"),
    ('{"id": 0, "ok": false, "kind": "timeout"}', "malformed reply (kind:"),
    ('{"id": 0, "ok": false, "kind": "raised", "value": "/etc/shadow"}',
     "a failure needs a kind and carries no value"),
    ('{"id": 0, "ok": true, "value": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "reply is not JSON: Invalid JSON: recursion limit exceeded"),
    ("[" * 100_000 + "]" * 100_000, "reply is not JSON"),
    ('"just a string"', "malformed reply (top level: Input should be an object"),
], ids=["path-key", "long-message", "bool-id", "string-ok", "host-kind", "failure-value",
        "deep-value", "deep-line", "not-object"])
def test_a_hostile_reply_line_is_a_protocol_error(bwrap, make_worker, line: str,
                                                  why: str) -> None:
    """Whatever the program writes on the reply channel is checked against the wire
    schema: unknown keys (a path), wrong types, host-only kinds, oversized messages and
    nesting past the parser are the child's protocol failure; the host carries on."""
    worker = make_worker(bwrap, SAYS)
    reply = worker.call("say", line)
    assert not reply.ok and reply.kind == "protocol" and reply.value is None, reply
    assert why in reply.message and len(reply.message) <= 600, reply.message
    assert worker.call("add", 1, 1).value == 2 and worker.restarts == 1


def test_a_well_formed_reply_line_is_the_call_s_value(bwrap, make_worker) -> None:
    """The control of the test above: the same channel with a schema-valid line."""
    worker = make_worker(bwrap, SAYS)
    reply = worker.call("say", '{"id": 0, "ok": true, "value": {"a": [1, 2]}}')
    assert reply.ok and reply.value == {"a": [1, 2]}
