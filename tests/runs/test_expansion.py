"""Trial expansion: deterministic order and indices, task filters, early metric checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.errors import ConfigError
from tether.runs.config import load_experiment
from tether.runs.expansion import expand, load_tasks

from .conftest import write_config, write_suite

ARMS = """[[strategies]]
name = "single_shot"
label = "short"
params = {max_tokens = 8}
[[strategies]]
name = "single_shot"
label = "long"
"""


def test_order_indices_and_ids_are_stable(experiment: Path, tmp_path: Path) -> None:
    cfg = write_config(tmp_path, strategies=ARMS, extra="budgets = [10, 20]", name="b.toml")
    exp = load_experiment(cfg)
    planned = expand(exp, load_tasks(exp))
    assert len(planned) == 3 * 2 * 2 * 2  # tasks x arms x budgets x seeds
    assert [p.index for p in planned] == list(range(len(planned)))
    first = planned[:8]
    assert {p.task.id for p in first} == {"t1"}  # task-major: all arms of t1 first
    assert [(p.spec.arm, p.spec.budget.total, p.spec.seed) for p in first[:4]] == [
        ("short", 10, 0), ("short", 10, 1), ("short", 20, 0), ("short", 20, 1)]
    assert planned[0].spec.strategy_params == {"max_tokens": 8}
    again = expand(exp, load_tasks(exp))
    assert [p.spec.trial_id for p in again] == [p.spec.trial_id for p in planned]
    assert len({p.spec.trial_id for p in planned}) == len(planned)


def test_label_is_part_of_the_arm_and_the_id(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json")
    plain = expand(e := load_experiment(write_config(tmp_path)), load_tasks(e))
    spec = plain[0].spec
    assert spec.arm == "single_shot" and spec.label == "single_shot"
    relabelled = spec.model_copy(update={"label": "other"})
    assert relabelled.trial_id != spec.trial_id
    unlabelled = spec.model_copy(update={"label": ""})
    assert unlabelled.arm == "single_shot"


@pytest.mark.parametrize(("tasks", "limit", "want"), [
    ('["t1", "t3"]', None, ["t1", "t3"]),
    ('["t*"]', 2, ["t1", "t2"]),
    ('["re:[23]$"]', None, ["t2", "t3"]),
    ('["suite/t2"]', None, ["t2"]),
])
def test_task_filter_and_limit(tmp_path: Path, tasks: str, limit: int | None,
                               want: list[str]) -> None:
    write_suite(tmp_path / "suite.json")
    extra = f"tasks = {tasks}" + (f"\nlimit = {limit}" if limit else "")
    exp = load_experiment(write_config(tmp_path, extra=extra))
    assert [t.id for t in load_tasks(exp)] == want


def test_filter_matching_nothing_and_bad_regex(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json")
    exp = load_experiment(write_config(tmp_path, extra='tasks = ["zzz*"]'))
    with pytest.raises(ConfigError, match="no task selected"):
        load_tasks(exp)
    exp = load_experiment(write_config(tmp_path, extra='tasks = ["re:("]'))
    with pytest.raises(ConfigError, match=r"tasks\[0\]: bad regular expression"):
        load_tasks(exp)


def test_unknown_metric_instrument_is_caught_before_running(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json", metric="no_such_instrument")
    exp = load_experiment(write_config(tmp_path))
    with pytest.raises(ConfigError, match=r"task suite/t1: metric: unknown instrument") as err:
        load_tasks(exp)
    assert "scripted_check" in (err.value.hint or "")


def test_same_suite_twice_is_refused(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json")
    cfg = write_config(tmp_path)
    cfg.write_text(cfg.read_text().replace('suites = ["tether:suite.json"]',
                                           'suites = ["tether:suite.json", "suite.json"]'))
    with pytest.raises(ConfigError, match="appears twice"):
        load_tasks(load_experiment(cfg))
