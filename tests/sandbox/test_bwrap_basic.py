"""Everyday behaviour of the bwrap backend: files, stdin, exit codes, sessions."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tether.sandbox import BwrapSandbox, OmittedFile, SandboxError


def test_files_in_and_out(bwrap: BwrapSandbox) -> None:
    result = bwrap.run(
        ["sh", "-c", "pwd; cat pkg/in.txt; echo out > out.txt; mkdir -p d; printf '\\377' > d/b"],
        files={"pkg/in.txt": b"hello\n"},
    )
    assert result.returncode == 0 and result.killed_reason is None
    assert result.stdout == "/work\nhello\n"
    assert result.files_out == {"pkg/in.txt": b"hello\n", "out.txt": b"out\n", "d/b": b"\xff"}
    as_json = result.to_json()
    assert as_json["files_out"]["d/b"] == {"encoding": "base64", "data": "/w=="}
    assert as_json["files_out"]["out.txt"] == {"encoding": "utf-8", "data": "out\n"}


def test_stdin_returncode_and_env(bwrap: BwrapSandbox) -> None:
    result = bwrap.run(
        ["sh", "-c", 'cat; echo "$GREETING" >&2; exit 7'], stdin="piped", env={"GREETING": "hi"}
    )
    assert (result.returncode, result.stdout, result.stderr) == (7, "piped", "hi\n")
    assert result.killed_reason is None and not result.timed_out


def test_python_available_and_soft_cap(bwrap: BwrapSandbox) -> None:
    result = bwrap.run(["python3", "-c", "print('é' * 100000)"])
    assert result.returncode == 0 and result.killed_reason is None  # soft cap: not killed
    assert result.stdout_elided == 100001 - 64 * 1024
    assert result.stdout.startswith("é") and "characters elided" in result.stdout


def test_session_persists_files(bwrap: BwrapSandbox, tmp_path: Path) -> None:
    tests_dir = tmp_path / "tests"  # under /tmp/pytest-of-root (0700): must be staged
    tests_dir.mkdir()
    (tests_dir / "test.sh").write_text("echo verified\n")
    with pytest.raises(SandboxError, match="not reachable"):
        bwrap.session(rw_binds={str(tmp_path / "logs"): "/logs"})
    logs = Path(tempfile.mkdtemp(prefix="tether-test-logs-"))
    with bwrap.session(ro_binds={str(tests_dir): "/tests"}, rw_binds={str(logs): "/logs"}) as s:
        assert s.run("pwd").stdout == "/app\n"
        assert s.run("echo 1 > state.txt").returncode == 0
        assert s.run(["cat", "state.txt"]).stdout == "1\n"
        assert (s.workdir / "state.txt").read_text() == "1\n"
        assert s.run("sh /tests/test.sh > /logs/reward.txt").returncode == 0
        assert s.run("echo x > /tests/evil").returncode != 0
        result = s.run("ls", collect=True)
        assert "state.txt" in result.files_out
        workdir = s.workdir
    assert (logs / "reward.txt").read_text() == "verified\n"
    assert not (tests_dir / "evil").exists()
    assert not workdir.exists()  # an owned session work dir is removed on close
    shutil.rmtree(logs)


def test_files_over_the_bound_are_listed_not_dropped(bwrap: BwrapSandbox) -> None:
    result = bwrap.run(["sh", "-c", "head -c 2000000 /dev/zero > big; echo s > small"])
    assert result.files_out == {"small": b"s\n"}
    assert result.files_omitted == (OmittedFile("big", 2000000, "too_large"),)
    assert result.to_json()["files_omitted"] == [
        {"name": "big", "size": 2000000, "reason": "too_large"}
    ]
