"""The harness-compilation settings as registered suites: one tether Task per item.

Suites (seed 0, default sizes 50 / 50 / 200):

    harness-docs    harness-shapes    harness-flags    harness-slides      the test split
    harness-docs:probe, harness-docs:validation, ... (every setting)        the other splits

The Task convention (the `harness_answer` instrument and the `compiled_harness` strategy
are written against it; keep the three in step):

    Task(id=ITEM_ID,                        # the setting's item id, e.g. "docs-0-test-0007"
         suite="harness-docs",              # the suite name as registered above
         prompt=QUESTION,                   # the item's question, exactly
         artifact_kind="text",              # the artifact is the harness's answer text
         metric="harness_answer",
         data={"setting": "docs",           # a name for tether.compile.get_setting
               "split": "test",             # probe | validation | test
               "item_id": ITEM_ID,          # equals Task.id
               "seed": 0,                   # the splits' seed
               "sizes": {"probe": 50, "validation": 50, "test": 200}})

`data` never holds gold, images or evidence: the item is rebuilt from the seed on the
compile side (`tether.compile.item_for_task_data(task.data)` -> (setting, item)),
and the score is `setting.score(answer, item)`. A setting whose optional packages are
missing registers no suite (`UNAVAILABLE` says why) so the other suites still load.

This module sits in `tether.suites` (not under `tether.compile`) because registering a
suite imports the suite registry, which is above `compile` in the package layers.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from tether.compile import SETTING_CLASSES, SPLITS, setting_tasks, suite_name
from tether.compile.settings import HARNESS_INSTALL, missing_packages
from tether.core.task import Task
from tether.suites.registry import register_suite

SEED = 0
PREFIX = "harness-"
METRIC = "harness_answer"
ARTIFACT_KIND = "text"
#: setting -> why its suites are not registered (a missing optional package)
UNAVAILABLE: dict[str, str] = {}


def harness_tasks(setting: str, split: str = "test", seed: int = SEED,
                  sizes: dict[str, int] | None = None) -> list[Task]:
    """The Tasks of one split of one setting, in item order (`compile.tasks.setting_tasks`,
    the one builder of harness tasks)."""
    return setting_tasks(setting, split, seed=seed, sizes=sizes)


def _loader(setting: str, split: str) -> Callable[[], list[Task]]:
    return lambda: harness_tasks(setting, split)


def _register() -> None:
    for setting, (module, _cls) in SETTING_CLASSES.items():
        missing = missing_packages(setting)
        if missing:
            UNAVAILABLE[setting] = f"needs {', '.join(missing)} ({HARNESS_INSTALL})"
            continue
        try:
            importlib.import_module(f"tether.compile.settings.{module}")
        except ImportError as exc:
            UNAVAILABLE[setting] = f"needs {exc.name} ({HARNESS_INSTALL})"
            continue
        for split in SPLITS:
            register_suite(suite_name(setting, split))(_loader(setting, split))


_register()
