"""Suites: where Tasks come from.

`load_suite(spec)` turns a spec into Tasks: a bundled suite name (`code`), a foreign
task file (`interaction-scaling:PATH`, or any `FORMAT:PATH` registered with
`register_format`), or a tether suite file (`tether:PATH` or a plain path).

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.suites.dataset_rows import (
        FORMATS as FORMATS,
        load_dataset_rows as load_dataset_rows,
    )
    from tether.suites.registry import (
        SPEC_FORMS as SPEC_FORMS,
        format_names as format_names,
        is_json_task_list as is_json_task_list,
        load_json_task_list as load_json_task_list,
        load_suite as load_suite,
        read_json_file as read_json_file,
        register_format as register_format,
        register_suite as register_suite,
        suite_names as suite_names,
    )
    from tether.suites.tether_format import (
        CodeTaskData as CodeTaskData,
        TaskEntry as TaskEntry,
        load_tether_file as load_tether_file,
        suite_file_json_schema as suite_file_json_schema,
        validate_entry as validate_entry,
    )

_HOMES: dict[str, str] = {
    "CodeTaskData": "tether.suites.tether_format",
    "FORMATS": "tether.suites.dataset_rows",
    "SPEC_FORMS": "tether.suites.registry",
    "TaskEntry": "tether.suites.tether_format",
    "format_names": "tether.suites.registry",
    "is_json_task_list": "tether.suites.registry",
    "load_dataset_rows": "tether.suites.dataset_rows",
    "load_json_task_list": "tether.suites.registry",
    "load_suite": "tether.suites.registry",
    "load_tether_file": "tether.suites.tether_format",
    "read_json_file": "tether.suites.registry",
    "register_format": "tether.suites.registry",
    "register_suite": "tether.suites.registry",
    "suite_file_json_schema": "tether.suites.tether_format",
    "suite_names": "tether.suites.registry",
    "validate_entry": "tether.suites.tether_format",
}
__all__ = [
    "CodeTaskData",
    "FORMATS",
    "SPEC_FORMS",
    "TaskEntry",
    "format_names",
    "is_json_task_list",
    "load_dataset_rows",
    "load_json_task_list",
    "load_suite",
    "load_tether_file",
    "read_json_file",
    "register_format",
    "register_suite",
    "suite_file_json_schema",
    "suite_names",
    "validate_entry",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
