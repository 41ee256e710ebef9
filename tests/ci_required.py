"""Under `CI=true` a skip for a missing bwrap, bpy or Chromium is a failure.

The containment, scene and browser suites skip where their tool is missing, so a user
without Blender can still run the rest. CI installs all three (`.ci/run` runs
`make test`, whose setup installs them), so a skip there means a broken install, and a
suite that skipped would read as green. These hooks (registered by tests/conftest.py)
turn such a skip, at collection or in a test, into a failure that names the tool.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator
from typing import Any

import pytest

#: skip reasons that mean one of the tools CI installs is missing
REQUIRED = re.compile(r"\bbwrap\b|bubblewrap|\bbpy\b|chromium", re.IGNORECASE)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def _reason(longrepr: Any) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr or "")


def _fail(report: Any) -> None:
    reason = _reason(report.longrepr).removeprefix("Skipped: ")
    report.outcome = "failed"
    report.longrepr = (f"CI=true: a required tool is missing, so this is a broken install, "
                       f"not a skip: {reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if (in_ci() and report.skipped and not hasattr(report, "wasxfail")
            and REQUIRED.search(_reason(report.longrepr))):
        _fail(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if in_ci() and report.outcome == "skipped" and REQUIRED.search(_reason(report.longrepr)):
        _fail(report)
