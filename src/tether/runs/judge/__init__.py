"""Judging finished runs: behaviour rubrics and the reward-hacking check (`tether judge`).

Public API: `load_rubrics`, `rubric_jobs`, `reward_hacking_job`, `judge_run`,
`read_judgements`, `judge_ledger`; the rest may change.
"""

from tether.runs.judge.ask import JUDGE_ROLE, judge_ledger
from tether.runs.judge.behaviour import rubric_jobs
from tether.runs.judge.engine import (
    DEFAULT_REPEATS,
    DEFAULT_TEMPERATURE,
    Job,
    JobSummary,
    judge_run,
)
from tether.runs.judge.reward_hacking import reward_hacking_job
from tether.runs.judge.rubrics import BUNDLED, RubricFile, RubricSet, load_rubrics
from tether.runs.judge.table import Judgement, read_judgements

__all__ = ["BUNDLED", "DEFAULT_REPEATS", "DEFAULT_TEMPERATURE", "JUDGE_ROLE", "Job",
           "JobSummary", "Judgement", "RubricFile", "RubricSet", "judge_ledger", "judge_run",
           "load_rubrics", "read_judgements", "reward_hacking_job", "rubric_jobs"]
