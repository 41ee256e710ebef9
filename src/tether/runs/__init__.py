"""Runs: the run directory and its store, the experiment runner, resume, rescoring.

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
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
    )
    from tether.runs.lock import (
        DirectoryBusy as DirectoryBusy,
        holds_directory as holds_directory,
        lock_directory as lock_directory,
        unlock_directory as unlock_directory,
    )
    from tether.runs.planning import plan as plan
    from tether.runs.progress import RunProgress as RunProgress
    from tether.runs.rescore import rescore_run as rescore_run
    from tether.runs.store import (
        DB_NAME as DB_NAME,
        LOG_NAME as LOG_NAME,
        RunStore as RunStore,
        StoreError as StoreError,
        damaged as damaged,
    )
    from tether.runs.summary import (
        arm_rows as arm_rows,
        arm_table as arm_table,
        by_status as by_status,
    )
    from tether.runs.trial_runner import run_trial as run_trial

_HOMES: dict[str, str] = {
    "BUNDLED": "tether.runs.judge",
    "CHECK": "tether.runs.judge.reward_hacking",
    "DB_NAME": "tether.runs.store",
    "DirectoryBusy": "tether.runs.lock",
    "Experiment": "tether.runs.config",
    "ExportCounts": "tether.runs.export",
    "Job": "tether.runs.judge.engine",
    "Judgement": "tether.runs.judge",
    "LOG_NAME": "tether.runs.store",
    "META_KEY": "tether.runs.costs",
    "PlannedTrial": "tether.runs.expansion",
    "PreparedRun": "tether.runs.launch",
    "RunProgress": "tether.runs.progress",
    "RunRequest": "tether.runs.launch",
    "RunStore": "tether.runs.store",
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
    "holds_directory": "tether.runs.lock",
    "judge_run": "tether.runs.judge",
    "load_experiment": "tether.runs.config",
    "load_rubrics": "tether.runs.judge",
    "load_tasks": "tether.runs.expansion",
    "lock_directory": "tether.runs.lock",
    "plan": "tether.runs.planning",
    "prepare": "tether.runs.launch",
    "read_judgements": "tether.runs.judge",
    "rescore_run": "tether.runs.rescore",
    "reward_hacking_job": "tether.runs.judge",
    "rubric_jobs": "tether.runs.judge",
    "run_book": "tether.runs.costs",
    "run_trial": "tether.runs.trial_runner",
    "total": "tether.runs.costs",
    "trial_cost": "tether.runs.costs",
    "unlock_directory": "tether.runs.lock",
    "write_jsonl": "tether.runs.export",
}
__all__ = [
    "BUNDLED",
    "CHECK",
    "DB_NAME",
    "DirectoryBusy",
    "Experiment",
    "ExportCounts",
    "Job",
    "Judgement",
    "LOG_NAME",
    "META_KEY",
    "PlannedTrial",
    "PreparedRun",
    "RunProgress",
    "RunRequest",
    "RunStore",
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
    "holds_directory",
    "judge_run",
    "load_experiment",
    "load_rubrics",
    "load_tasks",
    "lock_directory",
    "plan",
    "prepare",
    "read_judgements",
    "rescore_run",
    "reward_hacking_job",
    "rubric_jobs",
    "run_book",
    "run_trial",
    "total",
    "trial_cost",
    "unlock_directory",
    "write_jsonl",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
