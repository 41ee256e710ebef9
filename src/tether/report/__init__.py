"""The run report: numbers from a run store, plots, HTML pages, `tether report`."""

from tether.report.data import Report, build_report
from tether.report.html import write_report

__all__ = ["Report", "build_report", "write_report"]
