"""Harness compilation (System 3): the harness artifact, its runtime, admissibility.

The package holds `Setting` and its registry (setting.py), the artifact
`tether-harness/1` (harness.py), the one-item runtime with hooks in a sandboxed worker
(runtime.py), the admissibility checks (admissibility.py, hook_ast.py,
answer_audit.py), the runtime manual handed to a teacher (manual/runtime-v1.md), the
compiler (compiler/), the `compiled_harness` strategy and the harness suites' tasks.

The public API: other packages (suites, report, cli) import from here, not from the
modules, which may change.
"""

from tether.compile.admissibility import AdmissibilityReport, Violation, check_harness
from tether.compile.compiler.build import Compiler
from tether.compile.compiler.config import (
    COMPARATORS,
    CompileConfig,
    config_from_fields,
    load_compile_config,
)
from tether.compile.compiler.store import BuildDir
from tether.compile.compiler.summary import ARMS, summarise
from tether.compile.harness import (
    Harness,
    bare_harness,
    load_harness,
    read_harness_document,
    render_template,
)
from tether.compile.runtime import HarnessRuntime, HookRunner, ItemOutcome, score_outcome
from tether.compile.setting import (
    DEFAULT_SIZES,
    SPLITS,
    Item,
    Setting,
    ToySetting,
    get_setting,
    item_for_task_data,
    register_setting,
    setting_names,
)
from tether.compile.settings import SETTING_CLASSES
from tether.compile.strategy import HarnessFacts
from tether.compile.tasks import parse_suite_spec, setting_tasks, suite_name

__all__ = [
    "ARMS",
    "COMPARATORS",
    "DEFAULT_SIZES",
    "SETTING_CLASSES",
    "SPLITS",
    "AdmissibilityReport",
    "BuildDir",
    "CompileConfig",
    "Compiler",
    "Harness",
    "HarnessFacts",
    "HarnessRuntime",
    "HookRunner",
    "Item",
    "ItemOutcome",
    "Setting",
    "ToySetting",
    "Violation",
    "bare_harness",
    "check_harness",
    "config_from_fields",
    "get_setting",
    "item_for_task_data",
    "load_compile_config",
    "load_harness",
    "parse_suite_spec",
    "read_harness_document",
    "register_setting",
    "render_template",
    "score_outcome",
    "setting_names",
    "setting_tasks",
    "suite_name",
    "summarise",
]
