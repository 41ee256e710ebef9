"""The build sandbox on the real bwrap: what a Dockerfile RUN step can and cannot do.

The "image" here is a tiny root whose /usr is the host's (bound read-only), so each
step starts in milliseconds; the argv is the one every image build uses.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest

from tether.systems.terminal.build_proxy import FORWARDER, MirrorProxy
from tether.systems.terminal.build_sandbox import (
    STEP_SH,
    BuildSandbox,
    fake_chown_filter,
    give_back_ownership,
    take_ownership,
)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="builds drop from root to the build user")

OPEN_BY_HANDLE = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
class Handle(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int), ("f", ctypes.c_ubyte * 128)]
h, mount_id = Handle(), ctypes.c_int()
h.bytes = 128
assert libc.name_to_handle_at(-100, b"/etc", ctypes.byref(h), ctypes.byref(mount_id), 0) == 0
fd = libc.open_by_handle_at(os.open("/", os.O_RDONLY), ctypes.byref(h), os.O_RDONLY)
print("handle-open" if fd >= 0 else f"handle-errno={ctypes.get_errno()}")
"""


@pytest.fixture
def image():
    """(rootfs, run_dir, sandbox): a root with the host's /usr, owned by the build user."""
    top = Path(tempfile.mkdtemp(prefix="tether-build-test-", dir="/var/tmp"))
    top.chmod(0o755)
    rootfs, run_dir = top / "rootfs", top / "run"
    for d in ("usr", "etc", "app", "mnt", "root", "tmp", "run", "proc", "dev"):
        (rootfs / d).mkdir(parents=True)
    for link in ("bin", "lib", "lib64", "sbin"):
        (rootfs / link).symlink_to(f"usr/{link}")
    (rootfs / "etc" / "shadow").write_text("root:*:1::::::\n")
    os.chown(rootfs / "etc" / "shadow", 0, 42)
    run_dir.mkdir()
    (run_dir / "step.sh").write_text(STEP_SH)
    (run_dir / "forward.py").write_text(FORWARDER)
    for p in (run_dir, *run_dir.iterdir()):
        p.chmod(0o755)
    box = BuildSandbox(shutil.which("bwrap") or "bwrap")
    owners = take_ownership(rootfs, box.user)
    yield rootfs, run_dir, box, owners
    shutil.rmtree(top, ignore_errors=True)


def step(image, command: str, proxy: MirrorProxy | None = None) -> tuple[int, str]:
    rootfs, run_dir, box, _ = image
    log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)
    try:
        rc = box.run(rootfs, run_dir, "/app", command, log=log, timeout_s=60,
                     env={"PATH": "/usr/bin:/bin", "http_proxy": "http://127.0.0.1:3128"},
                     binds={"/usr": "/usr"})
        log.seek(0)  # the step's output, after the command line the log starts with
        return rc, log.read().split(command, 1)[-1]
    finally:
        log.close()
        os.unlink(log.name)


def test_a_run_step_has_no_capabilities_no_mount_and_no_host_file_handles(image):
    rc, out = step(image, "grep CapEff /proc/self/status; id -u; "
                   "mount -t tmpfs none /mnt && echo MOUNTED || echo mount-refused; "
                   f"python3 -c '{OPEN_BY_HANDLE}'")
    assert rc == 0, out
    assert "CapEff:\t0000000000000000" in out
    assert "MOUNTED" not in out and "mount-refused" in out
    assert "handle-open" not in out and "handle-errno=1" in out  # EPERM
    assert "\n0\n" in out  # "root" inside its own user namespace only


def test_a_run_step_cannot_reach_a_host_loopback_listener(image):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    rc, out = step(image, "python3 -c \"import socket; socket.create_connection(('127.0.0.1', "
                   f"{port}), timeout=3); print('REACHED')\" || echo unreachable")
    # a connection that got through would wait in the backlog: nothing does
    listener.settimeout(0.2)
    with pytest.raises(TimeoutError):
        listener.accept()
    listener.close()
    assert "REACHED" not in out and "unreachable" in out


def test_a_download_outside_the_mirrors_is_refused_by_the_proxy_and_recorded(image):
    _, run_dir, _, _ = image
    with MirrorProxy(run_dir / "proxy.sock", mirrors=("deb.debian.org",)) as proxy:
        # a download written so that no text check would spot it
        rc, out = step(image, "python3 -c \"import urllib.request as u; "
                       "u.urlopen(u.Request('http://' + 'exam' + 'ple.org/x'))\"")
        assert rc != 0 and "403" in out
        assert [str(r) for r in proxy.take_refused()] == ["example.org:80"]
        assert proxy.take_refused() == []  # one step's share at a time


def test_chown_succeeds_as_a_no_op_and_ownership_is_given_back(image):
    rootfs, _, box, owners = image
    rc, out = step(image, "echo x > /app/f && chown 42:42 /app/f && echo chowned; "
                   "stat -c %u:%g /app/f")
    assert rc == 0 and "chowned" in out and "0:0" in out, out
    assert (rootfs / "app" / "f").stat().st_uid == box.user.uid  # the build user on the host
    (rootfs / "app" / "escape").symlink_to("/etc/passwd")
    host_passwd = os.stat("/etc/passwd")
    give_back_ownership(rootfs, owners)
    assert (rootfs / "app" / "f").stat().st_uid == 0
    assert (rootfs / "etc" / "shadow").stat().st_gid == 42  # the base's own group again
    assert os.stat("/etc/passwd").st_uid == host_passwd.st_uid  # the link was not followed


def test_the_seccomp_program_covers_the_chown_family():
    prog = fake_chown_filter("x86_64")
    assert prog is not None and len(prog) == 8 * 9  # 9 instructions of 8 bytes
    assert fake_chown_filter("sparc") is None


def test_the_proxy_parses_both_request_forms():
    from tether.systems.terminal.build_proxy import parse_target

    method, host, port, head = parse_target(
        b"GET http://deb.debian.org/debian/dists/x HTTP/1.1\r\nHost: deb.debian.org\r\n"
        b"Proxy-Connection: keep-alive\r\n\r\n")
    assert (method, host, port) == ("GET", "deb.debian.org", 80)
    assert head.startswith(b"GET /debian/dists/x HTTP/1.1\r\n") and b"Proxy-" not in head
    assert b"Connection: close" in head
    assert parse_target(b"CONNECT pypi.org:443 HTTP/1.1\r\n\r\n")[:3] == (
        "CONNECT", "pypi.org", 443)
    with pytest.raises(ValueError):
        parse_target(b"GET /relative HTTP/1.1\r\n\r\n")


