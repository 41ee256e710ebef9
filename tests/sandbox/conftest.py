"""Fixtures for the sandbox suite: backends and a leftover-process check."""

from __future__ import annotations

import os
import time
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.sandbox import UnsafeSubprocessSandbox


@pytest.fixture(scope="session")
def unsafe() -> UnsafeSubprocessSandbox:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return UnsafeSubprocessSandbox()


def processes_matching(token: str) -> list[int]:
    """PIDs whose command line contains token (a /proc scan; no psutil needed)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if token.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.fixture
def token() -> str:
    """A unique marker to put in a command line, to find its processes later."""
    return f"tok{uuid.uuid4().hex[:10]}"


@pytest.fixture
def assert_no_leftovers() -> Callable[[str], None]:
    def check(tok: str, within_s: float = 10.0) -> None:
        # a poll deadline, not a speed test: a passing check returns at the first clean scan
        end = time.monotonic() + within_s
        while (left := processes_matching(tok)) and time.monotonic() < end:
            time.sleep(0.05)
        assert not left, f"processes left behind: {left}"

    return check
