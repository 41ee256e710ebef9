"""Runs: the run directory and its store, the experiment runner, resume, rescoring.

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.runs.api import (
        ArmOutcome as ArmOutcome,
        PairedOutcome as PairedOutcome,
        RunOutcome as RunOutcome,
        run as run,
    )
    from tether.runs.breaker import SKIPPED_KIND as SKIPPED_KIND
    from tether.runs.config import Experiment as Experiment, load_experiment as load_experiment
    from tether.runs.costs import (
        META_KEY as META_KEY,
        arm_cost as arm_cost,
        book_for as book_for,
        call_cost as call_cost,
        fmt_usd as fmt_usd,
        run_book as run_book,
        total as total,
        trial_cost as trial_cost,
    )
    from tether.runs.events import EVENTS_LOG as EVENTS_LOG, RunEvents as RunEvents
    from tether.runs.expansion import (
        PlannedTrial as PlannedTrial,
        expand as expand,
        load_tasks as load_tasks,
    )
    from tether.runs.export import (
        ExportCounts as ExportCounts,
        export_examples as export_examples,
        write_jsonl as write_jsonl,
    )
    from tether.runs.judge import (
        BUNDLED as BUNDLED,
        Judgement as Judgement,
        judge_run as judge_run,
        load_rubrics as load_rubrics,
        read_judgements as read_judgements,
        reward_hacking_job as reward_hacking_job,
        rubric_jobs as rubric_jobs,
    )
    from tether.runs.judge.engine import Job as Job
    from tether.runs.judge.reward_hacking import CHECK as CHECK
    from tether.runs.launch import (
        PreparedRun as PreparedRun,
        RunRequest as RunRequest,
        _apply_overrides as _apply_overrides,
        execute as execute,
        prepare as prepare,
        tether_revision as tether_revision,
    )
    from tether.runs.lock import (
        DirectoryBusy as DirectoryBusy,
        holds_directory as holds_directory,
        lock_directory as lock_directory,
        unlock_directory as unlock_directory,
    )
    from tether.runs.planning import plan as plan, real_models as real_models
    from tether.runs.progress import RunProgress as RunProgress
    from tether.runs.rebuild import Reopened as Reopened, reopen as reopen
    from tether.runs.rescore import rescore_run as rescore_run
    from tether.runs.shipped import (
        header_summary as header_summary,
        shipped_experiments as shipped_experiments,
    )
    from tether.runs.speed import (
        Speed as Speed,
        measured_speed as measured_speed,
        recorded_speed as recorded_speed,
    )
    from tether.runs.store import (
        COMMAND_META as COMMAND_META,
        CONFIG_NAME as CONFIG_NAME,
        DB_NAME as DB_NAME,
        LOG_NAME as LOG_NAME,
        RunStore as RunStore,
        StoreError as StoreError,
        damaged as damaged,
    )
    from tether.runs.strict import read_config as read_config, strict_model as strict_model
    from tether.runs.summary import (
        arm_rows as arm_rows,
        arm_table as arm_table,
        by_status as by_status,
    )
    from tether.runs.trial_runner import run_trial as run_trial

_HOMES: dict[str, str] = {
    "ArmOutcome": "tether.runs.api",
    "PairedOutcome": "tether.runs.api",
    "RunOutcome": "tether.runs.api",
    "run": "tether.runs.api",
    "BUNDLED": "tether.runs.judge",
    "CHECK": "tether.runs.judge.reward_hacking",
    "COMMAND_META": "tether.runs.store",
    "CONFIG_NAME": "tether.runs.store",
    "DB_NAME": "tether.runs.store",
    "DirectoryBusy": "tether.runs.lock",
    "EVENTS_LOG": "tether.runs.events",
    "Experiment": "tether.runs.config",
    "ExportCounts": "tether.runs.export",
    "Job": "tether.runs.judge.engine",
    "Judgement": "tether.runs.judge",
    "LOG_NAME": "tether.runs.store",
    "META_KEY": "tether.runs.costs",
    "PlannedTrial": "tether.runs.expansion",
    "PreparedRun": "tether.runs.launch",
    "Reopened": "tether.runs.rebuild",
    "RunEvents": "tether.runs.events",
    "RunProgress": "tether.runs.progress",
    "RunRequest": "tether.runs.launch",
    "RunStore": "tether.runs.store",
    "SKIPPED_KIND": "tether.runs.breaker",
    "Speed": "tether.runs.speed",
    "StoreError": "tether.runs.store",
    "_apply_overrides": "tether.runs.launch",
    "arm_cost": "tether.runs.costs",
    "arm_rows": "tether.runs.summary",
    "arm_table": "tether.runs.summary",
    "book_for": "tether.runs.costs",
    "by_status": "tether.runs.summary",
    "call_cost": "tether.runs.costs",
    "damaged": "tether.runs.store",
    "execute": "tether.runs.launch",
    "expand": "tether.runs.expansion",
    "export_examples": "tether.runs.export",
    "fmt_usd": "tether.runs.costs",
    "header_summary": "tether.runs.shipped",
    "holds_directory": "tether.runs.lock",
    "judge_run": "tether.runs.judge",
    "load_experiment": "tether.runs.config",
    "load_rubrics": "tether.runs.judge",
    "load_tasks": "tether.runs.expansion",
    "lock_directory": "tether.runs.lock",
    "measured_speed": "tether.runs.speed",
    "plan": "tether.runs.planning",
    "prepare": "tether.runs.launch",
    "read_config": "tether.runs.strict",
    "read_judgements": "tether.runs.judge",
    "real_models": "tether.runs.planning",
    "recorded_speed": "tether.runs.speed",
    "reopen": "tether.runs.rebuild",
    "rescore_run": "tether.runs.rescore",
    "reward_hacking_job": "tether.runs.judge",
    "rubric_jobs": "tether.runs.judge",
    "run_book": "tether.runs.costs",
    "run_trial": "tether.runs.trial_runner",
    "shipped_experiments": "tether.runs.shipped",
    "tether_revision": "tether.runs.launch",
    "strict_model": "tether.runs.strict",
    "total": "tether.runs.costs",
    "trial_cost": "tether.runs.costs",
    "unlock_directory": "tether.runs.lock",
    "write_jsonl": "tether.runs.export",
}
__all__ = [
    "ArmOutcome",
    "PairedOutcome",
    "RunOutcome",
    "run",
    "BUNDLED",
    "CHECK",
    "COMMAND_META",
    "CONFIG_NAME",
    "DB_NAME",
    "DirectoryBusy",
    "EVENTS_LOG",
    "Experiment",
    "ExportCounts",
    "Job",
    "Judgement",
    "LOG_NAME",
    "META_KEY",
    "PlannedTrial",
    "PreparedRun",
    "Reopened",
    "RunEvents",
    "RunProgress",
    "RunRequest",
    "RunStore",
    "SKIPPED_KIND",
    "Speed",
    "StoreError",
    "_apply_overrides",
    "arm_cost",
    "arm_rows",
    "arm_table",
    "book_for",
    "by_status",
    "call_cost",
    "damaged",
    "execute",
    "expand",
    "export_examples",
    "fmt_usd",
    "header_summary",
    "holds_directory",
    "judge_run",
    "load_experiment",
    "load_rubrics",
    "load_tasks",
    "lock_directory",
    "measured_speed",
    "plan",
    "prepare",
    "read_config",
    "read_judgements",
    "real_models",
    "recorded_speed",
    "reopen",
    "rescore_run",
    "reward_hacking_job",
    "rubric_jobs",
    "run_book",
    "run_trial",
    "shipped_experiments",
    "tether_revision",
    "strict_model",
    "total",
    "trial_cost",
    "unlock_directory",
    "write_jsonl",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
