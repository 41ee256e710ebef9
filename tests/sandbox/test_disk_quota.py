"""Disk quotas: a size-limited mount per work dir stops every way of taking host disk.

RLIMIT_FSIZE alone let `fallocate -n` take 2 GB and many small files add up without
bound; each test attacks the quota one way and checks the stop, the reason and the
host's bill (the image's allocated blocks).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

from tether.sandbox import BwrapSandbox, DiskQuota, DiskQuotaWarning, quota
from tether.sandbox.quota import is_mounted

QUOTA_MB = 64
MiB = 1024 * 1024

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a quota needs root")


@pytest.fixture
def created(monkeypatch: pytest.MonkeyPatch) -> list[DiskQuota]:
    """Every DiskQuota this test makes (the only ones it may look at: other tether
    processes on the machine mount and unmount their own at any time)."""
    made: list[DiskQuota] = []
    real = DiskQuota._mount

    def spy(self: DiskQuota) -> str | None:
        made.append(self)
        return real(self)

    monkeypatch.setattr(DiskQuota, "_mount", spy)
    return made


def leaked(quotas: list[DiskQuota]) -> list[str]:
    """What of `quotas` is still mounted or still on disk."""
    out = [f"mounted {q.path}" for q in quotas if is_mounted(q.path)]
    return out + [f"image {q.image}" for q in quotas if q.image is not None and q.image.exists()]


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
def test_no_mount_leaks_after_close_or_errors(bwrap: BwrapSandbox,
                                              created: list[DiskQuota]) -> None:
    for _ in range(2):
        assert bwrap.run(["true"], disk_mb=QUOTA_MB).disk_quota_mb == QUOTA_MB
    with pytest.raises(ValueError):  # setup fails after the mount: close still unmounts
        bwrap.session(files={"../escape": b"x"}, disk_mb=QUOTA_MB)
    with pytest.raises(ValueError):
        bwrap.run(["true"], files={"/etc/x": b""}, disk_mb=QUOTA_MB)
    assert len(created) == 4 and all(q.image is not None or q.closed for q in created)
    assert leaked(created) == []


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
    bwrap: BwrapSandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    created: list[DiskQuota],
) -> None:
    monkeypatch.setattr(quota, "_warned", False)
    monkeypatch.setattr(quota, "_MOUNT_OPTS", "loop,no_such_option_xyz")  # mount fails
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
    assert len(created) == 3 and leaked(created) == []
    q.close()


def test_a_quota_mounts_only_over_an_empty_dir(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("x")
    with pytest.raises(ValueError, match="empty"):
        DiskQuota(tmp_path, QUOTA_MB)
