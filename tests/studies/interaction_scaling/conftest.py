"""The suites' sandbox fixtures, shared with the study's format tests."""

from tests.systems.code.conftest import RunVerdicts, describe, run_verdicts

__all__ = ["RunVerdicts", "describe", "run_verdicts"]
