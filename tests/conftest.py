"""Shared fixtures: where the reference data lives, and skipping cleanly without it."""

from __future__ import annotations

from pathlib import Path

import pytest

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
