"""The unsafe subprocess backend keeps the contract a plain process can keep."""

from __future__ import annotations

import pytest

from tether.sandbox import UnsafeSandboxWarning, UnsafeSubprocessSandbox, get_sandbox


def test_warns_on_construction() -> None:
    with pytest.warns(UnsafeSandboxWarning, match="NO isolation"):
        UnsafeSubprocessSandbox()
    with pytest.warns(UnsafeSandboxWarning):
        assert get_sandbox("subprocess").name == "subprocess"


def test_basic_run(unsafe: UnsafeSubprocessSandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-leak")
    result = unsafe.run(
        ["sh", "-c", "cat in.txt; cat; env; echo new > new.txt; exit 3"],
        files={"in.txt": "file\n"},
        stdin=b"stdin\n",
    )
    assert result.returncode == 3
    assert result.stdout.startswith("file\nstdin\n")
    assert "sk-test-leak" not in result.stdout  # env is cleared here too
    assert result.files_out["new.txt"] == b"new\n"


def test_timeout_kills_process_group(unsafe, token, assert_no_leftovers) -> None:
    result = unsafe.run(
        ["sh", "-c", f"sh -c 'sleep infinity # {token}' & sleep infinity # {token}"],
        timeout_s=0.5
    )
    # Neither sleep ever ends: returning at all means the whole group was killed.
    assert result.timed_out and result.killed_reason == "timeout"
    assert_no_leftovers(token)


def test_unknown_backend() -> None:
    with pytest.raises(ValueError, match="unknown sandbox backend"):
        get_sandbox("docker")


def test_signal_deaths_report_128_plus_n(unsafe: UnsafeSubprocessSandbox) -> None:
    # The same convention as the bwrap backend (SandboxResult's docstring).
    xfsz = unsafe.run(["sh", "-c", "kill -XFSZ $$"])
    assert (xfsz.returncode, xfsz.killed_reason) == (128 + 25, "file_size")
    slow = unsafe.run(["sleep", "5"], timeout_s=0.5)
    assert (slow.returncode, slow.killed_reason) == (128 + 9, "timeout")
