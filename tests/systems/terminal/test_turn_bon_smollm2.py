"""Turn-BoN with a real model: SmolLM2-135M as generator and selector on two easy tasks.

Slow (real generation on CPU, kept short: few steps, small replies). A 135M model
rarely solves a task; what this proves is that the whole path is real: sampled
candidates, selector calls, sandboxed commands, the hidden verifier, an end state.
"""

from __future__ import annotations

import pytest

from tether.core.budget import BudgetSpec
from tether.core.end_state import AGENT_END_STATES as END_STATES
from tether.core.trial import TrialSpec
from tether.runs.trial_runner import run_trial
from tether.systems.terminal.harbor import BUNDLED_TERMINAL, load_harbor_task

pytest.importorskip("llama_cpp")
pytestmark = [pytest.mark.slow, pytest.mark.llama]

MODEL = "local/smollm2-135m"
N = 2
PARAMS = {"n": N, "step_limit": 2, "max_tokens": 48, "selector_max_tokens": 32,
          "selector_retries": 0, "command_timeout_s": 10}


@pytest.mark.parametrize("task_id", ["hello-file", "make-executable"])
def test_turn_bon_with_smollm2_runs_end_to_end(task_id):
    task = load_harbor_task(BUNDLED_TERMINAL / task_id, suite="terminal")
    spec = TrialSpec(suite="terminal", task_id=task_id, strategy="turn_bon",
                     strategy_params=PARAMS, models={"proposer": MODEL, "selector": MODEL},
                     budget=BudgetSpec(total=600), seed=1)
    record, _ = run_trial(spec, task)
    assert record.status != "error", f"{record.error_kind}: {record.error_message}"
    assert record.extra["end_state"] in END_STATES[:-1]  # anything but agent_error
    assert record.metric is not None and record.metric.ok
    assert record.metric.instrument == "terminal_verifier"
    turns = record.extra["turn_records"]
    assert 1 <= len(turns) <= PARAMS["step_limit"]
    assert all(len(t["candidates"]) == N for t in turns)
    generator_calls = [c for c in record.calls if c.role == "generator"]
    assert len(generator_calls) == N * len(turns)
    assert {c.model_id for c in record.calls} == {MODEL}
    assert record.extra["tokens"]["generator_output"] > 0
    assert record.tokens("output") + record.tokens("reasoning") <= 600
    selected = [t for t in turns if t["selector"] is not None]
    assert len([c for c in record.calls if c.role == "selector"]) == sum(
        len(t["selector"]["replies"]) for t in selected)
