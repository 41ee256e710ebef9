"""The harness settings as registered suites: names, counts, the Task convention."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.errors import ConfigError
from tether.suites.registry import load_suite, suite_names
from tether.systems.compile import item_for_task_data
from tether.systems.compile.tasks import UNAVAILABLE, harness_tasks, suite_name

SETTINGS = ("docs", "shapes", "flags", "slides")
DATA_KEYS = {"setting", "split", "item_id", "seed", "sizes"}


def test_every_setting_and_split_is_a_suite() -> None:
    assert UNAVAILABLE == {}, UNAVAILABLE  # setup installs the harness extra
    names = set(suite_names())
    for setting in SETTINGS:
        assert {f"harness-{setting}", f"harness-{setting}:probe",
                f"harness-{setting}:validation"} <= names
    assert suite_name("docs") == "harness-docs"
    assert suite_name("docs", "probe") == "harness-docs:probe"


@pytest.mark.parametrize("setting", SETTINGS)
def test_tasks_follow_the_convention_and_carry_no_gold(setting: str) -> None:
    tasks = load_suite(f"harness-{setting}:probe")
    assert len(tasks) == 50
    assert len({t.id for t in tasks}) == 50
    for task in tasks[:10]:
        assert task.suite == f"harness-{setting}:probe"
        assert task.artifact_kind == "text" and task.metric == "harness_answer"
        assert set(task.data) == DATA_KEYS
        assert task.data["item_id"] == task.id and task.data["split"] == "probe"
        assert task.data["seed"] == 0
        assert task.data["sizes"] == {"probe": 50, "validation": 50, "test": 200}
        found, item = item_for_task_data(task.data)
        assert found.name == setting
        assert item.item_id == task.id and item.question == task.prompt
        dumped = json.dumps(task.data).casefold()
        assert not any(f'"{g.casefold()}"' in dumped for g in found.gold(item))


def test_test_split_is_the_default_and_splits_are_disjoint() -> None:
    test = load_suite("harness-slides")
    assert len(test) == 200 and all(t.data["split"] == "test" for t in test)
    ids = {t.id for t in test}
    for split in ("probe", "validation"):
        assert ids.isdisjoint(t.id for t in load_suite(f"harness-slides:{split}"))
    assert [t.id for t in load_suite("harness-slides")] == [t.id for t in test]


def test_other_seeds_and_sizes_name_their_suite() -> None:
    tasks = harness_tasks("docs", "validation", seed=3, sizes={"validation": 5})
    assert len(tasks) == 5 and tasks[0].suite == "harness-docs:validation@seed3"
    setting, item = item_for_task_data(tasks[4].data)
    assert item.question == tasks[4].prompt and setting.name == "docs"


def test_an_item_a_setting_does_not_have_is_a_config_error() -> None:
    data = {"setting": "docs", "split": "test", "item_id": "docs-0-test-nope", "seed": 0,
            "sizes": {"probe": 0, "validation": 0, "test": 2}}
    with pytest.raises(ConfigError, match="no item"):
        item_for_task_data(data)


def test_suites_list_shows_the_harness_suites_with_counts() -> None:
    result = CliRunner().invoke(main, ["suites", "list", "--json"])
    assert result.exit_code == 0, result.output
    counts = {s["name"]: s["tasks"] for s in json.loads(result.stdout)["suites"]}
    assert counts["harness-slides"] == 200 and counts["harness-flags:probe"] == 50
