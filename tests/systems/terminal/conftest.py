"""The report tests' fixtures, shared with the terminal report's tests."""

from tests.report.conftest import pass_report, pass_run

__all__ = ["pass_report", "pass_run"]
