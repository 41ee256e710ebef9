"""The runtime manual handed to a teacher (a versioned text in the package)."""

from __future__ import annotations

from importlib import resources

__all__ = ["RUNTIME_MANUAL_VERSION", "runtime_manual"]

RUNTIME_MANUAL_VERSION = "runtime-v1"


def runtime_manual(version: str = RUNTIME_MANUAL_VERSION) -> str:
    """The text of the runtime manual `version` (e.g. "runtime-v1")."""
    return resources.files(__package__).joinpath(f"{version}.md").read_text(encoding="utf-8")
