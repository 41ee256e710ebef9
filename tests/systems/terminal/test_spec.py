"""TerminalSpec.from_task: a terminal task's data read back with its limits checked."""

from __future__ import annotations

import pytest

from tether.core.task import Task
from tether.errors import ConfigError
from tether.systems.terminal.spec import TerminalSpec


@pytest.mark.parametrize(("key", "value"), [
    ("memory_mb", float("inf")), ("agent_timeout_s", 1e308), ("disk_mb", 1e308),
    ("max_procs", -1), ("verifier_timeout_s", float("nan")), ("setup_timeout_s", "soon"),
])
def test_task_data_limits_are_finite_and_bounded(key, value):
    """Task data may come from elsewhere than task.toml (a run's records, a plugin):
    the same bounds hold, one line naming the key."""
    task = Task(id="t", suite="s", prompt="p", artifact_kind="shell",
                metric="terminal_verifier", data={"task_dir": "/x", key: value})
    with pytest.raises(ConfigError, match=f"task s/t: {key} must be a positive number up to"):
        TerminalSpec.from_task(task)
