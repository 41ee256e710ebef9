"""Harness compilation (System 3): the harness artifact, its runtime, admissibility.

The package holds `Setting` and its registry (setting.py), the artifact
`tether-harness/1` (harness.py), the one-item runtime with hooks in a sandboxed worker
(runtime.py), the admissibility checks (admissibility.py, hook_ast.py,
answer_audit.py) and the runtime manual handed to a teacher (manual/runtime-v1.md).
"""

from tether.compile.admissibility import AdmissibilityReport, Violation, check_harness
from tether.compile.harness import Harness, bare_harness, load_harness, render_template
from tether.compile.runtime import HarnessRuntime, HookRunner, ItemOutcome, score_outcome
from tether.compile.setting import (
    DEFAULT_SIZES,
    SPLITS,
    Item,
    Setting,
    ToySetting,
    get_setting,
    register_setting,
    setting_names,
)

__all__ = ["DEFAULT_SIZES", "SPLITS", "AdmissibilityReport", "Harness", "HarnessRuntime",
           "HookRunner", "Item", "ItemOutcome", "Setting", "ToySetting", "Violation",
           "bare_harness", "check_harness", "get_setting", "load_harness", "register_setting",
           "render_template", "score_outcome", "setting_names"]
