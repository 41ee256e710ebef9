"""Shared fixtures: where the reference data lives, and skipping cleanly without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ci_required import (  # noqa: F401  (hooks: a skip for bwrap/bpy/Chromium fails in CI)
    pytest_make_collect_report,
    pytest_runtest_makereport,
)
from tether.sandbox import BwrapSandbox, SandboxUnavailable

#: ../shared/reference beside the checkout: present in CI, absent on a user's machine.
REFERENCE_ROOT = Path(__file__).resolve().parents[2] / "shared" / "reference"
INTERACTION_SCALING = REFERENCE_ROOT / "interaction-scaling"


@pytest.fixture
def interaction_scaling_dir() -> Path:
    """The interaction-scaling reference folder; skips the test when it is absent."""
    if not INTERACTION_SCALING.is_dir():
        pytest.skip(f"reference data not found at {INTERACTION_SCALING} (present in CI)")
    return INTERACTION_SCALING


@pytest.fixture(scope="session")
def bwrap() -> BwrapSandbox:
    """The real bubblewrap sandbox; skips only when the host truly cannot run it."""
    try:
        return BwrapSandbox()
    except SandboxUnavailable as exc:
        pytest.skip(f"bwrap sandbox unavailable here: {exc} ({exc.hint})")


# -- heavy resources: declared by marker, enforced at first use ------------------------
#
# `make test-fast` deselects the markers below. So that the fast loop stays exact, a test
# without the marker that starts the resource anyway fails at once, naming the marker
# it needs (a test that only checks the "not available" error path stays unmarked).
# The llama.cpp *server* that tests/models/llama_server.py starts runs in a subprocess
# this guard cannot see: the two modules that use it are marked by hand.

RESOURCES = {
    "llama": "loads llama.cpp (the embedded model)",
    "browser": "starts Chromium",
    "ray": "starts Ray",
}


#: fixtures that start a resource: a test using one is marked by using it
RESOURCE_FIXTURES = {"browser_host": "browser"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, marker in RESOURCE_FIXTURES.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)


def _undeclared(request: pytest.FixtureRequest, marker: str) -> None:
    pytest.fail(f"{request.node.nodeid} {RESOURCES[marker]} but is not marked "
                f"@pytest.mark.{marker} (make test-fast must be able to leave it out)",
                pytrace=False)


@pytest.fixture(autouse=True)
def _resources_are_declared(request: pytest.FixtureRequest,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    def declared(marker: str) -> bool:
        return request.node.get_closest_marker(marker) is not None

    if not declared("browser"):
        from tether.systems.pages.geometry.browser import BrowserHost

        real_start = BrowserHost._start

        async def start(self: BrowserHost) -> None:
            if Path(self.executable).exists():  # a missing executable is the error path
                _undeclared(request, "browser")
            await real_start(self)

        monkeypatch.setattr(BrowserHost, "_start", start)
    if not declared("llama"):
        import tether.models.local as local

        monkeypatch.setattr(local, "_load", lambda *a, **k: _undeclared(request, "llama"))
    if not declared("ray"):
        import sys

        import tether.runs.ray_executor as ray_executor

        real_import = ray_executor.import_ray

        def import_ray():
            if "ray" in sys.modules and sys.modules["ray"] is None:  # Ray blocked: error path
                return real_import()
            _undeclared(request, "ray")

        monkeypatch.setattr(ray_executor, "import_ray", import_ray)
