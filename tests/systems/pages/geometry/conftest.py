"""One real browser for all geometry tests (starting Chromium costs about a second)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.systems.pages.geometry.browser import BrowserHost

PLANTED = Path(__file__).parent / "planted"


@pytest.fixture(scope="session")
def browser_host() -> Iterator[BrowserHost]:
    host = BrowserHost(concurrency=6)
    yield host
    host.close()
