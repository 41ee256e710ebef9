"""tether's instruments as Inspect scorers: a small Inspect task run by `inspect_ai.eval`
against Inspect's mock model (a test double with scripted replies), its log read back."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Task, eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.solver import generate  # noqa: E402

from tests.systems.pages.geometry.conftest import PLANTED  # noqa: E402
from tether.integrations.inspect_scorers import (  # noqa: E402
    checks_for,
    tether_execution,
    tether_geometry,
)

PROMPT = 'from typing import List\n\n\ndef total(xs: List[int]) -> int:\n    """Sum."""\n'
TEST = "def check(candidate):\n    assert candidate([1, 2]) == 3\n    assert candidate([]) == 0\n"
META = {"prompt": PROMPT, "test": TEST, "entry_point": "total"}
REPLIES = [
    # a completion-style body: completed from the prompt, which holds the import
    "```python\n    return sum(xs)\n```",
    # a whole function that is wrong
    "```python\ndef total(xs):\n    return len(xs)\n```",
    # a whole function that is right
    "```python\ndef total(xs):\n    return sum(xs)\n```",
]


def _output(reply: str) -> ModelOutput:
    out = ModelOutput.from_content(model="mockllm/model", content=reply)
    # usage given: the mock model would otherwise count tokens with tiktoken, which
    # downloads its encoding on first use (no network here)
    out.usage = ModelUsage(input_tokens=10, output_tokens=len(reply.split()),
                           total_tokens=10 + len(reply.split()))
    return out


def _run(task: Task, replies: list[str], log_dir: Path):
    model = get_model("mockllm/model", custom_outputs=[_output(r) for r in replies])
    (log,) = eval(task, model=model, log_dir=str(log_dir), display="none",
                  max_samples=1, max_connections=1)
    assert log.status == "success", log.error
    back = read_eval_log(log.location)
    return sorted(back.samples or [], key=lambda s: int(s.id)), back


def test_checks_call_check_on_the_entry_point_once():
    assert checks_for(META, "", "test", "total").endswith("check(total)\n")
    done = TEST + "check(total)\n"
    assert checks_for({"test": done}, "", "test", "total") == done
    assert checks_for({}, "assert f() == 1", "test", None) == "assert f() == 1"


def test_an_inspect_task_scored_by_tether_execution(tmp_path: Path):
    task = Task(dataset=[Sample(id=i, input="Write total.", metadata=META)
                         for i in range(1, len(REPLIES) + 1)],
                solver=generate(), scorer=tether_execution(sandbox="subprocess"))
    samples, log = _run(task, REPLIES, tmp_path)
    values = [s.scores["tether_execution"].value for s in samples]
    assert values == ["C", "I", "C"]
    failed = samples[1].scores["tether_execution"]
    assert failed.metadata["passed"] is False and failed.metadata["defects"]
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(2 / 3)


@pytest.mark.browser
def test_an_inspect_task_scored_by_tether_geometry(tmp_path: Path):
    pages = ["clean.html", "tall_text.html", "shifted_card.html"]
    replies = [f"```html\n{(PLANTED / p).read_text()}\n```" for p in pages]
    task = Task(dataset=[Sample(id=i, input="Make a slide.") for i in range(1, 4)],
                solver=generate(), scorer=tether_geometry(modality="figure"))
    samples, log = _run(task, replies, tmp_path)
    scores = [s.scores["tether_geometry"] for s in samples]
    assert [s.value for s in scores] == [0.0, 1.0, 1.0]
    assert [s.metadata["counts"] for s in scores] == [
        {}, {"overflow": 1}, {"misalignment": 1}]
    assert log.results.scores[0].metrics["mean"].value == pytest.approx(2 / 3)
