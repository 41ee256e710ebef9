"""Setting items as tether Tasks: one item per trial.

A harness-setting task carries no gold: `task.data` names where the item comes from,

    {"setting": "docs", "split": "test", "item_id": "docs-0-test-0007",
     "seed": 0, "sizes": {"probe": 50, "validation": 50, "test": 200}}

and `item_of(task)` rebuilds the setting's splits from the seed and sizes (cached per
process) to find it, so the trial record holds nothing a prompt must not see. The task's
metric is the `harness_answer` instrument (systems/compile/instrument.py), which applies the
setting's metric to the answer artifact.

Suite names have the form `harness-SETTING` (the test split) or `harness-SETTING:SPLIT`
(`harness:SETTING[:SPLIT]` is read too); `parse_suite_spec` reads one, `setting_tasks`
builds the tasks. The suite registry sits above this package, so registering them as
suites is done from there (`tether.systems.compile.tasks`, through `setting_tasks`).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tether.core import Task
from tether.errors import ConfigError
from tether.suites import register_suite
from tether.systems.compile.metric import METRIC
from tether.systems.compile.setting import (
    DEFAULT_SIZES,
    SPLITS,
    Item,
    Setting,
    fitted_sizes,
    get_setting,
    item_count,
    setting_names,
)
from tether.systems.compile.settings import HARNESS_INSTALL, SETTING_CLASSES, missing_packages

__all__ = ["METRIC", "SUITE_PREFIX", "item_of", "item_tasks", "parse_suite_spec", "setting_of",
           "setting_tasks", "suite_name", "task_suite"]

SUITE_PREFIX = "harness-"

_lock = threading.Lock()
_settings: dict[str, Setting] = {}
_splits: dict[tuple[str, int, tuple[tuple[str, int], ...]], dict[str, dict[str, Item]]] = {}


def suite_name(setting: str, split: str = "test") -> str:
    """The suite of a setting's split: `harness-docs` (test), `harness-docs:probe`."""
    return f"{SUITE_PREFIX}{setting}" if split == "test" else f"{SUITE_PREFIX}{setting}:{split}"


def parse_suite_spec(spec: str) -> tuple[str, str]:
    """(setting, split) of `harness-SETTING[:SPLIT]` (or `harness:SETTING[:SPLIT]`)."""
    if spec.startswith("harness:"):
        rest = spec.removeprefix("harness:")
    elif spec.startswith(SUITE_PREFIX):
        rest = spec.removeprefix(SUITE_PREFIX)
    else:
        rest = ""
    # a setting name may hold colons itself (jsonl:PATH, module:attr): the split is the
    # last part, and only when it names a split
    setting, _, split = rest.rpartition(":")
    if split not in SPLITS and setting not in _registered():
        setting, split = rest, ""  # `docs:bogus` is a bad split; `mod:attr` a setting
    split = split or "test"
    if not setting:
        raise ConfigError(f"not a harness suite spec: {spec!r}",
                          hint="write harness-SETTING[:SPLIT], e.g. harness-docs:probe")
    if split not in SPLITS:
        raise ConfigError(f"unknown split {split!r} in {spec!r}",
                          hint=f"splits: {', '.join(SPLITS)}")
    return setting, split


def _registered() -> set[str]:
    return set(setting_names())


def _sizes_key(sizes: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((k, int(v)) for k, v in sizes.items()))


def setting_of(name: str) -> Setting:
    """One shared instance per setting per process (settings cache their data)."""
    with _lock:
        if name not in _settings:
            _settings[name] = get_setting(name)
        return _settings[name]


def _split_items(name: str, seed: int, sizes: Mapping[str, int]) -> dict[str, dict[str, Item]]:
    key = (name, int(seed), _sizes_key(sizes))
    with _lock:
        cached = _splits.get(key)
    if cached is not None:
        return cached
    built = setting_of(name).splits(int(seed), dict(sizes))
    table = {split: {item.item_id: item for item in items} for split, items in built.items()}
    with _lock:
        _splits[key] = table
    return table


def setting_tasks(setting: str, split: str = "test", *, seed: int = 0,
                  sizes: Mapping[str, int] | None = None) -> list[Task]:
    """The tasks of one split of a setting, in split order."""
    # the defaults fitted to a setting smaller than them, as a compile without size flags
    # fits them: a 12-row file deploys on the same 6 test items it was compiled against
    count = item_count(setting_of(setting))
    full = fitted_sizes(count, sizes)
    items = _split_items(setting, seed, full)
    if split not in items:
        raise ConfigError(f"setting {setting!r} has no split {split!r}")
    if not items[split]:  # a setting smaller than the sizes: never an empty run
        count = sum(len(v) for v in items.values())
        raise ConfigError(f"the {split} split of setting {setting!r} is empty: its "
                          f"{count} items all went to earlier splits (sizes {dict(full)})",
                          hint="use another --split, or a setting with more items")
    suite = task_suite(setting, split, seed=int(seed), sizes=full, count=count)
    return item_tasks(setting, split, items[split].values(), suite=suite, seed=int(seed),
                      sizes=full)


def task_suite(setting: str, split: str, *, seed: int, sizes: Mapping[str, int],
               count: int | None) -> str:
    """The suite name of a split's tasks: `harness-SETTING[:SPLIT]`, with `@seedN` when
    the seed or the sizes are not the defaults (other items under the same name would
    collide). `count`: the setting's number of items, where it says."""
    suite = suite_name(setting, split)
    if int(seed) != 0 or dict(sizes) != fitted_sizes(count):
        suite += f"@seed{int(seed)}"
    return suite


def item_tasks(setting: str, split: str, items: Iterable[Item], *, suite: str, seed: int,
               sizes: Mapping[str, int]) -> list[Task]:
    """The Tasks of `items` of one split, in their order: what `tether run` runs and a
    compile records its scorings against."""
    return [Task(id=item.item_id, suite=suite, prompt=item.question, artifact_kind="text",
                 metric=METRIC,
                 data={"setting": setting, "split": split, "item_id": item.item_id,
                       "seed": int(seed), "sizes": dict(sizes)})
            for item in items]


def item_of(task: Task) -> tuple[Setting, Item]:
    """The setting and item a harness task names; ConfigError when it names none."""
    data: dict[str, Any] = task.data
    try:
        name, split, item_id = data["setting"], data["split"], data["item_id"]
    except KeyError as exc:
        raise ConfigError(f"task {task.key} is not a harness-setting task (no {exc.args[0]})",
                          hint="use a harness-SETTING[:SPLIT] suite") from None
    items = _split_items(name, int(data.get("seed", 0)), data.get("sizes") or DEFAULT_SIZES)
    item = items.get(split, {}).get(item_id)
    if item is None:
        raise ConfigError(f"task {task.key}: setting {name!r} has no item {item_id!r} "
                          f"in its {split} split")
    return setting_of(name), item


SEED = 0
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
            importlib.import_module(f"tether.systems.compile.settings.{module}")
        except ImportError as exc:
            UNAVAILABLE[setting] = f"needs {exc.name} ({HARNESS_INSTALL})"
            continue
        for split in SPLITS:
            register_suite(suite_name(setting, split))(_loader(setting, split))


_register()
