"""The sandbox's rootfs option: a prepared root filesystem, read-only, in place of the
host's system (what imported terminal tasks run on)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sandbox.rootfs_factory import make_rootfs
from tether.sandbox import SandboxError, UnsafeSubprocessSandbox


def _workdir() -> Path:
    d = Path(tempfile.mkdtemp(prefix="tether-rootfs-test-"))
    d.chmod(0o755)  # the sandbox user must reach it (pytest's tmp_path is 0700)
    return d


@pytest.fixture()
def image() -> Iterator[Path]:
    where = _workdir()
    yield make_rootfs(where / "rootfs")
    shutil.rmtree(where, ignore_errors=True)


def test_image_replaces_host_system_and_stays_read_only(image, bwrap):
    with bwrap.session(_workdir(), "/app", rootfs=image) as s:
        r = s.run("cat /etc/os-release /opt/only-in-image; ls /usr/bin | wc -l; "
                  "touch /usr/bin/x 2>&1; touch /opt/x 2>&1; echo ok > /app/out; pwd")
    assert r.stdout.startswith("ID=tether-test-image\nyes\n")
    assert r.stdout.count("Read-only file system") == 2
    assert r.stdout.rstrip().endswith("/app")
    # the host's python is not in the image: only the image's nine binaries are
    with bwrap.session(_workdir(), "/app", rootfs=image) as s:
        r = s.run("ls /usr/bin")
    assert sorted(r.stdout.split()) == sorted(
        ["bash", "sh", "cat", "ls", "touch", "echo", "id", "mkdir", "pwd"])


def test_without_rootfs_the_host_system_is_mounted(bwrap):
    with bwrap.session(_workdir(), "/app") as s:
        r = s.run("test -x /usr/bin/python3 && echo host-python")
    assert r.stdout == "host-python\n"


def test_binds_work_on_top_of_an_image_that_lacks_their_mount_points(image, bwrap):
    tests = image.parent / "tests"
    tests.mkdir()
    (tests / "t.sh").write_text("echo from-tests\n")
    tests.chmod(0o755)
    with bwrap.session(_workdir(), "/app", rootfs=image,
                       ro_binds={str(tests): "/tests"}) as s:
        r = s.run("bash /tests/t.sh")
    assert (r.returncode, r.stdout) == (0, "from-tests\n")


def test_unreachable_or_non_root_dirs_are_refused(tmp_path, bwrap, image):
    hidden = tmp_path / "rootfs"  # under pytest's 0700 tmp dir
    shutil.copytree(image, hidden, symlinks=True)
    with bwrap.session(_workdir(), "/app", rootfs=hidden) as s, \
            pytest.raises(SandboxError, match="not reachable"):
        s.run("true")
    empty = image.parent / "notroot"
    empty.mkdir()
    with bwrap.session(_workdir(), "/app", rootfs=empty) as s, \
            pytest.raises(SandboxError, match="not a root filesystem"):
        s.run("true")


def test_the_unsafe_backend_refuses_a_rootfs(image):
    with pytest.warns(UserWarning), pytest.raises(SandboxError, match="cannot mount"):
        UnsafeSubprocessSandbox().session(rootfs=image)
