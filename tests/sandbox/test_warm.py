"""WarmPool: one-shot commands in warm bwrap sandboxes, each from a clean slate.

The isolation tests run a command that leaves every kind of state it can (files in its
work dir, $HOME, /tmp, /dev/shm and /dev, processes that escaped its session, System V
IPC objects, keys, changed modes), then a second command in the same slot that looks
for each: nothing may survive. The limit tests run commands at once and check that each
has its own memory and process limits; the rest check that a warm run reports what a
fresh sandbox reports for the same command.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest

from tether.sandbox import BwrapSandbox, SandboxResult, WarmPool

LEAVE_STATE = r"""
import ctypes, os, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
for path in ("left.txt", os.path.expanduser("~/home.txt"), "/tmp/left.txt",
             "/dev/shm/left", "/dev/left"):
    with open(path, "w") as fh:
        fh.write("state")
os.makedirs("/tmp/deep/er", exist_ok=True)
os.chmod("/tmp/deep", 0)
os.symlink("/tmp/elsewhere", "/dev/stdin.alt")
os.unlink("/dev/stdout")
os.symlink("/tmp/captured", "/dev/stdout")
os.chmod("/tmp", 0o500)
# a daemon that leaves the session and the process group, twice forked
subprocess.Popen(["sh", "-c", "sleep 1000 &"], start_new_session=True)
print("shm", libc.shmget(0x7E7E, 4096, 0o1600), "sem", libc.semget(0x7E7E, 1, 0o1600),
      "msg", libc.msgget(0x7E7E, 0o1600))
key = libc.syscall(248, b"user", b"tether-probe", b"x", 1, -4)  # add_key to @u
print("key", key)
sys.stdout.flush()
"""

LOOK_FOR_STATE = r"""
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
found = {}
found["cwd"] = sorted(os.listdir("."))
found["files"] = [p for p in (os.path.expanduser("~/home.txt"), "/tmp/left.txt",
                              "/dev/shm/left", "/dev/left", "/dev/stdin.alt", "/tmp/deep")
                  if os.path.lexists(p)]
found["tmp"] = sorted(os.listdir("/tmp")) + sorted(os.listdir("/dev/shm"))
found["stdout_link"] = os.readlink("/dev/stdout")
found["tmp_writable"] = os.access("/tmp", os.W_OK)
me = os.getpid()
found["processes"] = sorted(
    open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")[0].decode()
    for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me, os.getppid()))
found["ipc"] = [libc.shmget(0x7E7E, 0, 0), libc.semget(0x7E7E, 0, 0), libc.msgget(0x7E7E, 0)]
found["sysvipc"] = [len(open(f"/proc/sysvipc/{k}").readlines()) - 1
                    for k in ("shm", "sem", "msg")]
# keyctl(KEYCTL_SEARCH, @u, "user", "tether-probe", 0)
found["key"] = libc.syscall(250, 10, -4, b"user", b"tether-probe", 0)
found["env"] = os.environ.get("LEFT_BY_FIRST")
print(json.dumps(found))
"""


@pytest.fixture
def pool(bwrap: BwrapSandbox) -> Iterator[WarmPool]:
    with WarmPool(bwrap) as warm:
        yield warm


def python(pool: WarmPool, code: str, **kwargs) -> SandboxResult:
    return pool.run(["python3", "-c", code], timeout_s=kwargs.pop("timeout_s", 20), **kwargs)


def test_a_command_finds_nothing_the_one_before_it_left(pool: WarmPool) -> None:
    first = python(pool, LEAVE_STATE, files={"staged.txt": "mine"},
                   env={"LEFT_BY_FIRST": "1"})
    assert first.returncode == 0, first.stderr
    assert "shm -1" not in first.stdout and "key -1" not in first.stdout  # all were made
    second = python(pool, LOOK_FOR_STATE, files={"second.txt": "its own"})
    assert second.returncode == 0, second.stderr
    found = json.loads(second.stdout)
    assert pool.starts == 1 and pool.runs == 2  # the same warm sandbox ran both
    assert found == {
        "cwd": ["second.txt"], "files": [], "tmp": [], "stdout_link": "/proc/self/fd/1",
        "tmp_writable": True, "processes": [], "ipc": [-1, -1, -1], "sysvipc": [0, 0, 0],
        "key": -1, "env": None,
    }


def test_the_work_dir_is_fresh_and_the_only_place_to_write_besides_scratch(
        pool: WarmPool) -> None:
    code = ("import os\nprint(os.getcwd(), os.environ['HOME'])\n"
            "for p in ('..', '/', '/usr', '/etc'):\n"
            "    print(p, os.access(p, os.W_OK))\n"
            "open('../outside', 'w')\n")
    result = python(pool, code, files={"a.txt": "x"})
    lines = result.stdout.splitlines()
    assert lines[0] == "/work/run /work/run"
    assert lines[1:] == [".. False", "/ False", "/usr False", "/etc False"]
    assert result.returncode == 1 and "Permission denied" in result.stderr
    assert result.files_out == {"a.txt": b"x"}


def test_stdin_reaches_the_command_and_never_the_next(pool: WarmPool) -> None:
    read = "import sys\nprint(repr(sys.stdin.read()))\n"
    assert python(pool, read, stdin=b"feedface" * 4).stdout == f"'{'feedface' * 4}'\n"
    assert python(pool, read).stdout == "''\n"


def test_the_slot_process_cannot_be_read_by_the_command(pool: WarmPool) -> None:
    code = ("import os\nfor p in (f'/proc/{os.getppid()}/mem', f'/proc/{os.getppid()}/environ',"
            " f'/proc/{os.getppid()}/fd/3'):\n"
            "    try:\n        open(p, 'rb').read(16); print('read', p)\n"
            "    except OSError as exc:\n        print('denied', type(exc).__name__)\n")
    result = python(pool, code)
    assert "read" not in result.stdout and result.stdout.count("denied") == 3


def test_each_command_in_flight_has_its_own_memory_and_process_limits(
        bwrap: BwrapSandbox, pool: WarmPool) -> None:
    if not bwrap.use_cgroups:
        pytest.skip("per-command limits need cgroups (root and a writable v1 hierarchy)")
    # two commands at once, each with 400 MB under its own 600 MB limit: both fit
    # (one 600 MB limit shared by both would kill one)
    hold = ("import time\nblock = bytearray(400 * 1024 * 1024)\n"
            "for i in range(0, len(block), 4096):\n    block[i] = 1\n"
            "time.sleep(1.5)\nprint('kept')\n")
    results: list[SandboxResult] = []

    def one() -> None:
        results.append(python(pool, hold, memory_mb=600))

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.stdout for r in results] == ["kept\n", "kept\n"], results
    assert pool.starts == 2  # two slots: one per command in flight
    over = python(pool, hold.replace("400", "900"), memory_mb=600)
    assert over.killed_reason == "memory"
    forks = ("import subprocess\nps = [subprocess.Popen(['sleep', '2']) for _ in range(40)]\n"
             "print(len(ps))\n")
    counts: list[SandboxResult] = []
    threads = [threading.Thread(target=lambda: counts.append(python(pool, forks, max_procs=48)))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.stdout for r in counts] == ["40\n", "40\n"], counts
    many = python(pool, forks.replace("40", "80"), max_procs=48)
    assert many.returncode != 0 and many.killed_reason == "max_procs"


def test_a_timeout_kills_the_command_and_the_slot_runs_the_next(pool: WarmPool) -> None:
    result = pool.run(["sh", "-c", "sleep 100 & echo started; sleep 100"], timeout_s=1)
    assert result.timed_out and result.killed_reason == "timeout"
    assert result.returncode == 137 and result.stdout == "started\n"
    after = python(pool, "import os\nprint(len([p for p in os.listdir('/proc') if p.isdigit()]))")
    assert after.stdout == "3\n"  # init, the slot's process, this command
    assert pool.starts == 1


def test_a_command_that_kills_the_slot_fails_alone(pool: WarmPool) -> None:
    killed = python(pool, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"
                          "import time\ntime.sleep(5)\n")
    assert killed.returncode is None and not killed.timed_out
    assert python(pool, "print('next')").stdout == "next\n"
    assert pool.starts == 2  # the dead slot was not reused


def test_an_output_flood_is_cut_off_and_the_slot_discarded(pool: WarmPool) -> None:
    flood = pool.run(["sh", "-c", "yes"], timeout_s=20)
    assert flood.killed_reason == "output_limit"
    assert python(pool, "print('next')").stdout == "next\n"
    assert pool.starts == 2


@pytest.mark.parametrize("code, reason", [
    ("import sys\nsys.exit(3)", None),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", "killed"),
    ("open('big', 'wb').write(b'x' * (3 * 1024 * 1024))", "file_size"),
    ("block = bytearray(400 * 1024 * 1024)", "memory"),
    ("import os\nif os.fork() == 0:\n    print('child')\n    os._exit(0)\n"
     "os.wait()\nprint('parent')", None),
])
def test_a_warm_run_reports_what_a_fresh_sandbox_reports(
        bwrap: BwrapSandbox, pool: WarmPool, code: str, reason: str | None) -> None:
    kwargs = {"timeout_s": 20, "max_file_mb": 2, "memory_mb": 256}
    warm = pool.run(["python3", "-c", code], **kwargs)
    cold = bwrap.run(["python3", "-c", code], **kwargs)
    fields = ("returncode", "stdout", "timed_out", "killed_reason", "files_out")
    assert {f: getattr(warm, f) for f in fields} == {f: getattr(cold, f) for f in fields}
    if reason == "killed":  # a SIGKILL nobody explains: a memory kill only without cgroups
        reason = None if bwrap.use_cgroups else "memory"
    assert warm.killed_reason == reason


FORKED = r"""
import json, os, random, sys
print(json.dumps({"argv": sys.argv, "name": __name__, "path0": sys.path[0],
                  "random": random.random(), "env": os.environ.get("MARK"),
                  "patched": getattr(json, "patched", False)}))
json.patched = True  # module state of this run's interpreter, not of the next run's
os.environ["MARK"] = "left"
sys.exit(int(sys.argv[1]))
"""


def test_a_trusted_script_run_in_a_fork_behaves_as_python3_runs_it(pool: WarmPool) -> None:
    def run(code: str) -> SandboxResult:
        return pool.run(["python3", "script.py", code], files={"script.py": FORKED},
                        timeout_s=20, env={"MARK": "given"}, python_in_fork=True)

    first, second = run("3"), run("0")
    assert (first.returncode, second.returncode) == (3, 0)
    one, two = json.loads(first.stdout), json.loads(second.stdout)
    assert one["argv"] == ["script.py", "3"] and one["name"] == "__main__"
    assert one["path0"] == "/work/run" and one["env"] == two["env"] == "given"
    assert two["patched"] is False  # nothing the first run did to its modules survives
    assert one["random"] != two["random"]  # each run seeds its own `random`
    raised = pool.run(["python3", "script.py"], files={"script.py": "raise ValueError('x')"},
                      timeout_s=20, python_in_fork=True)
    assert raised.returncode == 1 and "ValueError: x" in raised.stderr
    assert 'File "/work/run/script.py", line 1' in raised.stderr
    assert pool.starts == 1
    with pytest.raises(ValueError, match="python3 SCRIPT"):
        pool.run(["sh", "script.sh"], python_in_fork=True)


def test_a_forked_script_runs_as_given_each_time_though_its_code_is_kept(
        pool: WarmPool) -> None:
    # the slot keeps the compiled code of a trusted script by its text: the same name
    # with other text is other code, and a run that rewrites its script changes nothing
    # for the next run (which gets the file the host wrote, in a fresh work dir)
    def run(text: str) -> SandboxResult:
        return pool.run(["python3", "script.py"], files={"script.py": text}, timeout_s=20,
                        python_in_fork=True)

    rewrite = "open(__file__, 'w').write('print(666)')\nprint('a')\n"
    outputs = [run(text).stdout for text in (rewrite, "print('b')\n", rewrite, "print('b')\n")]
    assert outputs == ["a\n", "b\n", "a\n", "b\n"]
    broken = run("def f(:\n")
    assert broken.returncode == 1 and "SyntaxError" in broken.stderr
    assert pool.starts == 1


def test_slots_started_ahead_serve_the_first_commands(pool: WarmPool) -> None:
    pool.prestart(2)
    pool.prestart(2)  # already two on their way: nothing more
    results: list[SandboxResult] = []
    threads = [threading.Thread(target=lambda: results.append(python(pool, "print(1)")))
               for _ in range(2)]
    for t in threads:  # they come while the two may still be starting: they wait for them
        t.start()
    for t in threads:
        t.join()
    assert [r.stdout for r in results] == ["1\n", "1\n"]
    assert pool.starts == 2 and pool.runs == 2


def test_slots_are_kept_to_one_per_cpu_and_a_hung_command_holds_up_no_other(
        bwrap: BwrapSandbox) -> None:
    import time

    with WarmPool(bwrap, slots_at_once=1) as one:
        one.prestart(4)  # one slot, however many are asked for
        fast = "print('fast')"
        results: list[SandboxResult] = []
        threads = [threading.Thread(target=lambda: results.append(python(one, fast)))
                   for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [r.stdout for r in results] == ["fast\n"] * 3
        assert one.starts == 1  # short commands took turns on the one slot
        slow = threading.Thread(target=lambda: python(one, "import time\ntime.sleep(6)"))
        slow.start()
        time.sleep(0.5)  # the slow one holds the only slot
        start = time.monotonic()
        assert python(one, fast).stdout == "fast\n"
        assert time.monotonic() - start < 5  # it did not wait for the slow one to end
        assert one.starts == 2
        slow.join()


def test_a_command_asking_more_than_the_usual_limits_gets_a_slot_that_allows_them(
        pool: WarmPool) -> None:
    code = "import resource\nprint(resource.getrlimit(resource.RLIMIT_FSIZE)[0] >> 20)"
    assert python(pool, code, max_file_mb=8000, memory_mb=10_000).stdout == "8000\n"
    assert python(pool, code).stdout == "16\n"  # the next one has its own limits again
