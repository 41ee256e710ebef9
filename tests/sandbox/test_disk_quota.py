"""Disk quotas: a size-limited mount per work dir stops every way of taking host disk.

RLIMIT_FSIZE alone let `fallocate -n` take 2 GB and many small files add up without
bound; each test attacks the quota one way and checks the stop, the reason and the
host's bill (the image's allocated blocks).
"""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path

import pytest

from tether.sandbox import BwrapSandbox, DiskQuota, DiskQuotaWarning, quota
from tether.sandbox.quota import is_mounted

QUOTA_MB = 64
MiB = 1024 * 1024

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a quota needs root")


def tether_mounts() -> set[str]:
    with open("/proc/self/mounts") as fh:
        return {line.split()[1] for line in fh if "tether-" in line.split()[1]}


def quota_images() -> set[str]:
    return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("tether-quota-")}


@needs_root
def test_fallocate_past_the_quota_is_stopped(bwrap: BwrapSandbox) -> None:
    # -n (keep size) never grows the file's size, so RLIMIT_FSIZE does not see it.
    cmd = ": > big; fallocate -n -l 2G big; rc=$?; du -k big >&2; exit $rc"
    result = bwrap.run(["sh", "-c", cmd], disk_mb=QUOTA_MB)
    assert result.returncode != 0 and result.killed_reason == "disk_quota", result
    assert result.disk_quota_mb == QUOTA_MB
    allocated_kb = int(result.stderr.split()[-2])
    assert allocated_kb * 1024 <= QUOTA_MB * MiB


@needs_root
def test_session_quota_many_files_sparse_file_and_persistence(bwrap: BwrapSandbox) -> None:
    with bwrap.session(disk_mb=QUOTA_MB, max_file_mb=256) as s:
        assert s.quota is not None and s.quota.enforced_mb == QUOTA_MB
        workdir, image = s.workdir, s.quota.image
        assert is_mounted(workdir) and image is not None
        assert s.run("echo kept > note.txt").returncode == 0
        assert s.run("cat note.txt").stdout == "kept\n"  # persists across commands

        # 32 x 8 MB, each under any per-file cap: together four times the quota.
        many = s.run("for i in $(seq 32); do head -c 8M /dev/zero > f$i; done")
        assert many.killed_reason == "disk_quota", many
        assert s.quota.host_bytes() <= QUOTA_MB * MiB
        freed = s.run("rm -f f*; cat note.txt")
        assert freed.ok and freed.stdout == "kept\n"

        # A sparse file costs nothing until it is written in full.
        sparse = s.run(
            "truncate -s 200M sparse && dd if=/dev/zero of=sparse bs=1M "
            "count=200 conv=notrunc status=none"
        )
        assert sparse.killed_reason == "disk_quota", sparse
        assert s.quota.host_bytes() <= QUOTA_MB * MiB
        assert s.run("rm sparse").ok
        assert not s.quota.full()
    assert not is_mounted(workdir) and not workdir.exists() and not image.exists()


@needs_root
def test_no_mount_leaks_after_close_or_errors(bwrap: BwrapSandbox) -> None:
    before, images = tether_mounts(), quota_images()
    for _ in range(2):
        assert bwrap.run(["true"], disk_mb=QUOTA_MB).disk_quota_mb == QUOTA_MB
    with pytest.raises(ValueError):  # setup fails after the mount: close still unmounts
        bwrap.session(files={"../escape": b"x"}, disk_mb=QUOTA_MB)
    with pytest.raises(ValueError):
        bwrap.run(["true"], files={"/etc/x": b""}, disk_mb=QUOTA_MB)
    assert tether_mounts() <= before
    assert quota_images() <= images


@needs_root
def test_keep_copies_the_files_out_of_the_mount(bwrap: BwrapSandbox) -> None:
    s = bwrap.session(disk_mb=QUOTA_MB, keep=True)
    try:
        assert s.run("mkdir d && echo x > d/f && ln -s d/f link").ok
    finally:
        s.close()
    try:
        assert not is_mounted(s.workdir)
        assert (s.workdir / "d" / "f").read_text() == "x\n"
        assert os.readlink(s.workdir / "link") == "d/f"
    finally:
        import shutil

        shutil.rmtree(s.workdir)


def test_fallback_warns_once_and_records_no_quota(
    bwrap: BwrapSandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(quota, "_warned", False)
    monkeypatch.setattr(quota, "_MOUNT_OPTS", "loop,no_such_option_xyz")  # mount fails
    images = quota_images()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        q = DiskQuota(tmp_path / "q", QUOTA_MB)
        DiskQuota(tmp_path / "q2", QUOTA_MB).close()
        result = bwrap.run(
            ["sh", "-c", "head -c 3000000 /dev/zero > big"], disk_mb=QUOTA_MB, max_file_mb=1
        )
    assert q.enforced_mb is None and q.reason_unenforced and not q.full()
    assert len([w for w in caught if issubclass(w.category, DiskQuotaWarning)]) == 1
    # The per-file limit still holds, and the result says no quota was enforced.
    assert result.killed_reason == "file_size" and result.disk_quota_mb is None
    assert quota_images() <= images
    q.close()


def test_a_quota_mounts_only_over_an_empty_dir(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("x")
    with pytest.raises(ValueError, match="empty"):
        DiskQuota(tmp_path, QUOTA_MB)
