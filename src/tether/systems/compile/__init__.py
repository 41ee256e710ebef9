"""Harness compilation (System 3): the harness artifact, its runtime, admissibility.

The package holds `Setting` and its registry (setting.py), the artifact
`tether-harness/1` (harness.py), the one-item runtime with hooks in a sandboxed worker
(runtime.py), the admissibility checks (admissibility.py, hook_ast.py,
answer_audit.py), the runtime manual handed to a teacher (manual/runtime-v1.md), the
compiler (compiler/: a compile is a run of `tether.runs`), the `compiled_harness`
strategy and the harness suites' tasks.

The public API: other packages (suites, report, cli) import from here, not from the
modules, which may change.

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.systems.compile.admissibility import (
        AdmissibilityReport as AdmissibilityReport,
        Violation as Violation,
        check_harness as check_harness,
    )
    from tether.systems.compile.cli.harness import load_harness_suite as load_harness_suite
    from tether.systems.compile.compiler.build import Compiler as Compiler
    from tether.systems.compile.compiler.config import (
        COMPARATORS as COMPARATORS,
        CompileConfig as CompileConfig,
        config_from_fields as config_from_fields,
        load_compile_config as load_compile_config,
    )
    from tether.systems.compile.compiler.deploy import (
        PREDICTIONS as PREDICTIONS,
        Deployed as Deployed,
        Deployment as Deployment,
    )
    from tether.systems.compile.compiler.endpoint import StudentUnreachable as StudentUnreachable
    from tether.systems.compile.compiler.gepa_arm import (
        PROMPT_PART as PROMPT_PART,
        REFLECTION_HEAD as REFLECTION_HEAD,
    )
    from tether.systems.compile.compiler.legacy import OldBuildDir as OldBuildDir
    from tether.systems.compile.compiler.run import (
        COMMAND as COMMAND,
        CompileRun as CompileRun,
        is_old_build_dir as is_old_build_dir,
    )
    from tether.systems.compile.compiler.summary import (
        ARMS as ARMS,
        summarise as summarise,
        teacher_cost as teacher_cost,
    )
    from tether.systems.compile.compiler.view import CompileView as CompileView
    from tether.systems.compile.harness import (
        SCHEMA as SCHEMA,
        Harness as Harness,
        bare_harness as bare_harness,
        load_harness as load_harness,
        read_harness_document as read_harness_document,
        render_template as render_template,
    )
    from tether.systems.compile.runtime import (
        HarnessRuntime as HarnessRuntime,
        HookRunner as HookRunner,
        ItemOutcome as ItemOutcome,
        score_outcome as score_outcome,
    )
    from tether.systems.compile.setting import (
        DEFAULT_SIZES as DEFAULT_SIZES,
        SPLITS as SPLITS,
        Item as Item,
        Setting as Setting,
        get_setting as get_setting,
        item_for_task_data as item_for_task_data,
        register_setting as register_setting,
        setting_names as setting_names,
    )
    from tether.systems.compile.settings import SETTING_CLASSES as SETTING_CLASSES
    from tether.systems.compile.settings.toy import ToySetting as ToySetting
    from tether.systems.compile.strategy import HarnessFacts as HarnessFacts
    from tether.systems.compile.tasks import (
        parse_suite_spec as parse_suite_spec,
        setting_tasks as setting_tasks,
        suite_name as suite_name,
    )

_HOMES: dict[str, str] = {
    "ARMS": "tether.systems.compile.compiler.summary",
    "AdmissibilityReport": "tether.systems.compile.admissibility",
    "COMMAND": "tether.systems.compile.compiler.run",
    "COMPARATORS": "tether.systems.compile.compiler.config",
    "CompileConfig": "tether.systems.compile.compiler.config",
    "CompileRun": "tether.systems.compile.compiler.run",
    "CompileView": "tether.systems.compile.compiler.view",
    "Deployed": "tether.systems.compile.compiler.deploy",
    "Deployment": "tether.systems.compile.compiler.deploy",
    "Compiler": "tether.systems.compile.compiler.build",
    "DEFAULT_SIZES": "tether.systems.compile.setting",
    "Harness": "tether.systems.compile.harness",
    "HarnessFacts": "tether.systems.compile.strategy",
    "HarnessRuntime": "tether.systems.compile.runtime",
    "HookRunner": "tether.systems.compile.runtime",
    "Item": "tether.systems.compile.setting",
    "ItemOutcome": "tether.systems.compile.runtime",
    "OldBuildDir": "tether.systems.compile.compiler.legacy",
    "PREDICTIONS": "tether.systems.compile.compiler.deploy",
    "PROMPT_PART": "tether.systems.compile.compiler.gepa_arm",
    "REFLECTION_HEAD": "tether.systems.compile.compiler.gepa_arm",
    "SCHEMA": "tether.systems.compile.harness",
    "SETTING_CLASSES": "tether.systems.compile.settings",
    "SPLITS": "tether.systems.compile.setting",
    "Setting": "tether.systems.compile.setting",
    "StudentUnreachable": "tether.systems.compile.compiler.endpoint",
    "ToySetting": "tether.systems.compile.settings.toy",
    "Violation": "tether.systems.compile.admissibility",
    "bare_harness": "tether.systems.compile.harness",
    "check_harness": "tether.systems.compile.admissibility",
    "config_from_fields": "tether.systems.compile.compiler.config",
    "get_setting": "tether.systems.compile.setting",
    "is_old_build_dir": "tether.systems.compile.compiler.run",
    "item_for_task_data": "tether.systems.compile.setting",
    "load_compile_config": "tether.systems.compile.compiler.config",
    "load_harness": "tether.systems.compile.harness",
    "load_harness_suite": "tether.systems.compile.cli.harness",
    "parse_suite_spec": "tether.systems.compile.tasks",
    "read_harness_document": "tether.systems.compile.harness",
    "register_setting": "tether.systems.compile.setting",
    "render_template": "tether.systems.compile.harness",
    "score_outcome": "tether.systems.compile.runtime",
    "setting_names": "tether.systems.compile.setting",
    "setting_tasks": "tether.systems.compile.tasks",
    "suite_name": "tether.systems.compile.tasks",
    "summarise": "tether.systems.compile.compiler.summary",
    "teacher_cost": "tether.systems.compile.compiler.summary",
}
__all__ = [
    "ARMS",
    "AdmissibilityReport",
    "COMMAND",
    "COMPARATORS",
    "CompileConfig",
    "CompileRun",
    "CompileView",
    "Compiler",
    "DEFAULT_SIZES",
    "Deployed",
    "Deployment",
    "Harness",
    "HarnessFacts",
    "HarnessRuntime",
    "HookRunner",
    "Item",
    "ItemOutcome",
    "OldBuildDir",
    "PREDICTIONS",
    "PROMPT_PART",
    "REFLECTION_HEAD",
    "SCHEMA",
    "SETTING_CLASSES",
    "SPLITS",
    "Setting",
    "StudentUnreachable",
    "ToySetting",
    "Violation",
    "bare_harness",
    "check_harness",
    "config_from_fields",
    "get_setting",
    "is_old_build_dir",
    "item_for_task_data",
    "load_compile_config",
    "load_harness",
    "load_harness_suite",
    "parse_suite_spec",
    "read_harness_document",
    "register_setting",
    "render_template",
    "score_outcome",
    "setting_names",
    "setting_tasks",
    "suite_name",
    "summarise",
    "teacher_cost",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
