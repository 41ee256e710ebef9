"""Containment suite for the bwrap backend (invariant 4 of docs/concepts.md).

Each test attacks one boundary and checks the outcome, the killed_reason and that no
process of the attack survives the run. Every attack runs twice: as the sandbox user,
and as root of the sandbox's own user namespace (`as_root`, how terminal tasks run),
which must change nothing of what the attack can reach.
"""

from __future__ import annotations

import shutil
import socket
import tempfile
import threading
from pathlib import Path

import pytest

from tether.sandbox import BwrapSandbox, SandboxResult
from tether.sandbox.users import reachable_by


class AsRoot:
    """The same backend with every run as root of its own user namespace."""

    as_root = True

    def __init__(self, box: BwrapSandbox) -> None:
        self.box = box
        self.user = box.user

    def run(self, argv: list[str], **kwargs: object) -> SandboxResult:
        return self.box.run(argv, as_root=True, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(params=["sandbox-user", "root-in-namespace"])
def bwrap(request: pytest.FixtureRequest, bwrap: BwrapSandbox) -> BwrapSandbox:
    return bwrap if request.param == "sandbox-user" else AsRoot(bwrap)  # type: ignore[return-value]


def test_writes_outside_workdir_do_not_reach_host(bwrap: BwrapSandbox, token: str) -> None:
    host_tmp = Path("/tmp") / f"host-{token}"
    script = (
        f"for p in /etc/{token} /root/{token} /usr/{token} /{token}; do "
        '  if touch "$p" 2>/dev/null; then echo "WROTE $p"; fi; done; '
        f"echo data > {host_tmp} && echo tmp-ok; echo inside > in_workdir.txt"
    )
    result = bwrap.run(["sh", "-c", script])
    assert "WROTE" not in result.stdout
    assert result.files_out == {"in_workdir.txt": b"inside\n"}
    for path in (host_tmp, Path("/etc") / token, Path("/root") / token, Path("/usr") / token):
        assert not path.exists(), f"{path} was written on the host"
    # /tmp inside is a private tmpfs: the write succeeded there, not on the host.
    assert "tmp-ok" in result.stdout


def test_cannot_read_shadow(bwrap: BwrapSandbox) -> None:
    result = bwrap.run(["cat", "/etc/shadow"])
    assert result.returncode != 0
    assert "root:" not in result.stdout
    # Even if /etc/shadow were bound, the dropped user could not read it (0640 root).
    assert not reachable_by(Path("/etc/shadow"), bwrap.user)


def test_runs_unprivileged_without_capabilities(bwrap: BwrapSandbox) -> None:
    work = Path(tempfile.mkdtemp(prefix="tether-caps-"))
    work.chmod(0o755)  # the sandbox user must reach it
    try:
        result = bwrap.run(["sh", "-c", "id -u; grep CapEff /proc/self/status; touch made"],
                           workdir=work)
        owner = (work / "made").stat().st_uid
    finally:
        shutil.rmtree(work, ignore_errors=True)
    uid, caps = result.stdout.split("\n")[:2]
    assert caps.split()[1] == "0000000000000000"
    # whoever the command is inside, what it makes belongs to the sandbox user outside
    assert owner == bwrap.user.uid
    if getattr(bwrap, "as_root", False):
        assert uid == "0" and bwrap.user.uid != 0
    else:
        assert uid != "0"


def test_parent_env_does_not_leak(bwrap: BwrapSandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-leak")
    result = bwrap.run(["sh", "-c", "env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'"])
    assert result.returncode == 0
    assert "sk-test-leak" not in result.stdout
    assert "PATH=" in result.stdout


@pytest.fixture
def loopback_server():
    """A TCP server on the host's 127.0.0.1 that counts the connections it accepts."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    srv.settimeout(0.2)
    accepted: list[object] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            accepted.append(conn)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield srv.getsockname()[1], accepted
    stop.set()
    thread.join()
    srv.close()


CONNECT = (
    "import socket, sys\n"
    "try:\n"
    "    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
    "    print('CONNECTED')\n"
    "except OSError as e:\n"
    "    print('FAILED', e); sys.exit(1)\n"
)


def test_no_network_to_host_loopback(bwrap: BwrapSandbox, loopback_server) -> None:
    port, accepted = loopback_server
    result = bwrap.run(["python3", "-c", CONNECT.format(port=port)])
    assert "CONNECTED" not in result.stdout
    assert result.returncode == 1
    assert accepted == []


def test_network_true_reaches_host_loopback(bwrap: BwrapSandbox, loopback_server) -> None:
    # Positive control: proves the test above fails for the right reason.
    port, accepted = loopback_server
    result = bwrap.run(["python3", "-c", CONNECT.format(port=port)], network=True)
    assert "CONNECTED" in result.stdout, result


def test_fork_bomb_bounded_by_max_procs(bwrap, token, assert_no_leftovers) -> None:
    bomb = (
        f"# {token}\n"
        "import os, time\n"
        "for i in range(1000):\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(60); os._exit(0)\n"
    )
    result = bwrap.run(["python3", "-c", bomb], max_procs=32, timeout_s=10)
    assert result.killed_reason == "max_procs", result
    assert "Resource temporarily unavailable" in result.stderr
    assert not result.timed_out  # stopped by the process limit, not by the 10 s clock
    assert_no_leftovers(token)


def test_shell_fork_bomb_contained(bwrap, token, assert_no_leftovers) -> None:
    result = bwrap.run(
        ["bash", "-c", f"b() {{ b | b & }}; b; sleep infinity # {token}"], max_procs=32,
        timeout_s=2
    )
    # The bomb never ends by itself: it is stopped at the wall clock, then swept (a run
    # that waited for it would never return).
    assert result.killed_reason == "timeout", result
    assert result.duration_s >= 2  # not stopped before its time
    assert_no_leftovers(token)


def test_memory_bomb(bwrap: BwrapSandbox, token: str, assert_no_leftovers) -> None:
    bomb = f"# {token}\nchunks = []\nwhile True: chunks.append(b'x' * (64 << 20))"
    result = bwrap.run(["python3", "-c", bomb], memory_mb=256, timeout_s=20)
    assert result.killed_reason == "memory", result
    assert result.returncode != 0
    assert not result.timed_out
    assert_no_leftovers(token)


def test_unbounded_output_capped(bwrap: BwrapSandbox, token, assert_no_leftovers) -> None:
    result = bwrap.run(["yes", token], timeout_s=10)
    assert result.killed_reason == "output_limit"
    assert result.stdout_elided > 1_000_000
    assert f"[{result.stdout_elided} characters elided]" in result.stdout
    assert len(result.stdout) < 70_000
    assert result.stdout.startswith(token) and result.stdout.rstrip().endswith(token)
    assert_no_leftovers(token)


def test_detached_daemon_killed_at_timeout(bwrap, token, assert_no_leftovers) -> None:
    cmd = f'setsid nohup sh -c "sleep 1000; : {token}" >/dev/null 2>&1 & sleep 1000'
    result = bwrap.run(["sh", "-c", cmd], timeout_s=1.5)
    assert result.timed_out and result.killed_reason == "timeout"
    assert_no_leftovers(token)


def test_detached_daemon_killed_when_command_exits(bwrap, token, assert_no_leftovers) -> None:
    cmd = f'setsid nohup sh -c "sleep infinity; : {token}" >/dev/null 2>&1 & echo started'
    result = bwrap.run(["sh", "-c", cmd], timeout_s=600)
    # The command's own exit ends the run: waiting for the daemon would reach the 600 s
    # limit (timed out, past pytest's 300 s) instead of this clean exit.
    assert not result.timed_out and result.killed_reason is None
    assert result.returncode == 0 and result.stdout == "started\n"
    assert_no_leftovers(token)


def test_sleep_forever_times_out(bwrap: BwrapSandbox, token, assert_no_leftovers) -> None:
    result = bwrap.run(["sh", "-c", f"sleep infinity # {token}"], timeout_s=1)
    assert result.timed_out and result.killed_reason == "timeout"
    assert result.returncode == 128 + 9  # SandboxResult: killed by signal N is 128+N
    assert result.duration_s >= 1  # not stopped early; a run that never stops hangs pytest
    assert_no_leftovers(token)


def test_file_size_limit(bwrap: BwrapSandbox) -> None:
    result = bwrap.run(["sh", "-c", "head -c 3000000 /dev/zero > big"], max_file_mb=1)
    assert result.killed_reason == "file_size", result
    py = bwrap.run(["python3", "-c", "open('big', 'wb').write(b'0' * (3 << 20))"], max_file_mb=1)
    assert py.killed_reason == "file_size", py
