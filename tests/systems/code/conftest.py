"""Fixtures for the code tests: the real bwrap sandbox and a parallel verdict runner."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from tether.sandbox import BwrapSandbox, SandboxResult

#: Two at a time: CI has 2 cores, and each run is one short python3 process.
PARALLEL = 2

RunVerdicts = Callable[[Sequence[tuple[str, str]]], list[SandboxResult]]



@pytest.fixture(scope="session")
def run_verdicts(bwrap: BwrapSandbox) -> RunVerdicts:
    """Run (program, checks) pairs with the study's rule: program + newline + checks.

    The verdict is the exit code of `python3 prog.py` in the sandbox (0 = pass).
    """

    def run_one(pair: tuple[str, str]) -> SandboxResult:
        program, checks = pair
        return bwrap.run(["python3", "prog.py"], files={"prog.py": program + "\n" + checks},
                         timeout_s=30)

    def run_all(pairs: Sequence[tuple[str, str]]) -> list[SandboxResult]:
        with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
            return list(pool.map(run_one, pairs))

    return run_all


def describe(result: SandboxResult) -> str:
    """The last line of stderr (the failing assert) for a readable failure message."""
    tail = result.stderr.strip().splitlines()[-1:] or [""]
    return f"rc={result.returncode} killed={result.killed_reason} {tail[0][:200]}"
