"""Backend-independent pieces: output capping, classification, file staging."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tether.sandbox.base import HeadTailBuffer, classify, collect_files, stage_files


def test_head_tail_keeps_both_ends_and_counts() -> None:
    buf = HeadTailBuffer(cap_chars=10)
    for _ in range(100):
        buf.feed(b"0123456789")
    text, elided = buf.finish()
    assert elided == 990
    assert text == "01234\n... [990 characters elided] ...\n56789"


def test_head_tail_multibyte_split_and_small() -> None:
    buf = HeadTailBuffer(cap_chars=100)
    data = "héllo".encode()
    buf.feed(data[:2])
    buf.feed(data[2:])
    assert buf.finish() == ("héllo", 0)


def test_classify_order() -> None:
    assert classify(timed_out=True, output_limited=True, returncode=-9, stderr="") == "timeout"
    assert classify(timed_out=False, output_limited=False, returncode=0, stderr="") is None
    assert (
        classify(timed_out=False, output_limited=False, returncode=137, stderr="", oom_killed=True)
        == "memory"
    )
    assert (
        classify(
            timed_out=False,
            output_limited=False,
            returncode=137,
            stderr="",
            oom_killed=False,
            pids_limited=False,
        )
        is None
    )
    assert classify(timed_out=False, output_limited=False, returncode=-25, stderr="") == (
        "file_size"
    )
    full = {"timed_out": False, "output_limited": False, "stderr": "", "disk_full": True}
    assert classify(returncode=1, **full) == "disk_quota"  # type: ignore[arg-type]
    assert classify(returncode=0, **full) is None  # type: ignore[arg-type]
    assert classify(returncode=153, **full) == "file_size"  # type: ignore[arg-type]
    assert (
        classify(
            timed_out=False,
            output_limited=False,
            returncode=1,
            stderr="fork: Resource temporarily unavailable",
        )
        == "max_procs"
    )


def test_stage_rejects_escape(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        stage_files(tmp_path, {"../x": b""})
    with pytest.raises(ValueError):
        stage_files(tmp_path, {"/etc/x": b""})


def test_collect_skips_links(tmp_path: Path) -> None:
    (tmp_path / "ok.txt").write_bytes(b"ok")
    os.symlink("/etc/passwd", tmp_path / "link")
    os.link(tmp_path / "ok.txt", tmp_path / "hard")
    (tmp_path / "plain").write_bytes(b"p")
    files, omitted = collect_files(tmp_path)
    assert files == {"plain": b"p"}
    assert sorted((f.name, f.reason) for f in omitted) == [
        ("hard", "link"),
        ("link", "link"),
        ("ok.txt", "link"),
    ]
