"""Suites: where Tasks come from.

`load_suite(spec)` turns a spec into Tasks: a bundled suite name (`code`), a foreign
task file (`interaction-scaling:PATH`, or any `FORMAT:PATH` registered with
`register_format`), or a tether suite file (`tether:PATH` or a plain path).
"""

from __future__ import annotations

from .registry import (
    SPEC_FORMS,
    format_names,
    load_suite,
    read_json_file,
    register_format,
    register_suite,
    suite_names,
)
from .tether_format import CodeTaskData, TaskEntry, load_tether_file, suite_file_json_schema

__all__ = [
    "SPEC_FORMS",
    "CodeTaskData",
    "TaskEntry",
    "format_names",
    "load_suite",
    "load_tether_file",
    "read_json_file",
    "register_format",
    "register_suite",
    "suite_file_json_schema",
    "suite_names",
]
