"""What a harness-compilation setting provides: items, observations, a metric.

A setting (flags, shapes, docs, slides, or any registered one) is the world a compiled
harness runs in. The runtime asks it for the observation of an item (built from the
item and the harness's enabled resources, never from gold), the item's image, and the
score of an answer; admissibility asks it for its inventory (entity names a hook must
not hard-code), its public vocabulary (answer options the task itself names, exempt
from that audit) and the gold of probe/validation items.

    @register_setting("mine")
    def _mine() -> Setting:
        return MySetting()

    setting = get_setting("mine")   # ConfigError naming the known settings otherwise

The settings are a `Registry` (`SETTINGS`, tether.registry): the bundled ones, those
registered in code, and those other distributions declare as `tether.settings` entry
points.

The `toy` setting is a test double (settings/toy.py), declared as an entry point like the
other bundled settings.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from tether import plugins
from tether.errors import ConfigError
from tether.registry import Registry
from tether.systems.compile.settings import (
    DATA_FORMATS,
    SETTING_CLASSES,
    build_data_setting,
    build_setting,
    data_spec,
    parse_data_spec,
)

__all__ = ["DATA_FORMATS", "DEFAULT_SIZES", "PLUGIN_GROUP", "SETTINGS", "SPLITS", "Item",
           "Setting", "check_splits", "fitted_sizes", "get_setting",
           "is_labelled", "item_count", "item_for_task_data", "register_setting", "same_setting",
           "setting_names"]

#: the three splits every setting yields, disjoint
SPLITS = ("probe", "validation", "test")
#: default split sizes (probe / validation / test)
DEFAULT_SIZES: Mapping[str, int] = {"probe": 50, "validation": 50, "test": 200}


@dataclass(frozen=True)
class Item:
    """One question of a setting.

    `data` holds whatever the setting needs to build observations, render the image
    and score (file paths, candidates, gold...). The runtime never reads `data`
    itself: gold reaches only the setting's `score` and `gold`.
    """

    item_id: str
    question: str
    data: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class Setting(Protocol):
    """The interface a setting implements (see the module docstring).

    Optional attributes, read with `getattr` where present:

    - `offered_resources: tuple[str, ...]`: the resources a harness may enable (the
      teacher sees each in the examples; one it does not offer is a ConfigError);
    - `resource_fields: Mapping[str, str]`: the observation field a resource fills when
      it is not the resource's own name (flags: `cards` -> `candidates`);
    - `aggregation: str`: `"mean_score"` for a graded metric (bootstrap intervals, the
      sign test), otherwise a pass rate (Wilson intervals, exact McNemar);
    - `description: str`: what the teacher reads as the task description; without it,
      the class docstring (and a bundled setting's module docstring);
    - `metric_text: str`: how the teacher prompt names the metric;
    - `lookup(name, resources) -> dict | None`: a student-named entity looked up (the
      `generate` intervention applies only to settings that have it);
    - `make_item(seed, split, index) -> Item`: one item rebuilt without its split (a
      deployed trial finds its item without regenerating the splits);
    - `__len__()`: the number of items (named when split sizes are too large);
    - `hooks_only_resources()` / `hooks_only_answer(obs)`: the hooks-only baseline;
    - `labelled(item) -> bool`: whether the item has gold to score against (a user's
      data read for a deployment may have rows without); without it, every item has;
    - `prepare(item)`: starts making the item's image ahead of its call, into the memo
      `image` reads, and may return before it is made (docs draws its pages in a helper
      process, settings/page_worker.py); a compile calls it from background threads for
      its first items at its start and for the next items while earlier calls wait for
      the endpoint (compiler/pool.py); only a setting whose `image` is memoized has it.
    """

    name: str

    def splits(self, seed: int, sizes: Mapping[str, int]) -> dict[str, list[Item]]:
        """Disjoint `probe`, `validation`, `test` items; the same seed, the same items."""
        ...

    def observation(self, item: Item, resources: Mapping[str, Any]) -> dict[str, Any]:
        """`{"item_id", "question"}` plus the fields of the enabled resources
        (`candidates`, `ocr`, `pages`, `signals`...); never gold."""
        ...

    def image(self, item: Item) -> bytes | None:
        """The item's image (PNG bytes), or None for a text-only item."""
        ...

    def score(self, answer: str, item: Item) -> float:
        """The setting's metric of `answer` on `item`, in [0, 1]."""
        ...

    def inventory(self) -> list[str]:
        """Entity names (countries, codes, companies...) a harness must not hard-code."""
        ...

    def public_vocabulary(self) -> list[str]:
        """Answer options the task statement itself names (yes/no, colours...)."""
        ...

    def gold(self, item: Item) -> list[str]:
        """The accepted answers of `item` (for the hard-coded-answer audit)."""
        ...


#: how the items of a setting smaller than DEFAULT_SIZES are shared out among the splits
#: left to the defaults: a quarter each to probe and validation, the rest to test
_SHARES: Mapping[str, int] = {"probe": 1, "validation": 1, "test": 2}


def is_labelled(setting: Any, item: Item) -> bool:
    """Whether `item` has gold answers to score against (`Setting.labelled`, where the
    setting has it): an unlabelled item is answered, never scored."""
    check = getattr(setting, "labelled", None)
    return True if check is None else bool(check(item))


def item_count(setting: Any) -> int | None:
    """The setting's number of items when it says (`__len__`), else None."""
    return len(setting) if hasattr(setting, "__len__") else None


def fitted_sizes(total: int | None, given: Mapping[str, int] | None = None) -> dict[str, int]:
    """The split sizes a command uses: the `given` ones, and DEFAULT_SIZES for the rest,
    unless they do not fit in `total` items; then the items the given sizes leave are
    shared out among the other splits (at least one each), so a 12-row file compiles as
    3 / 3 / 6 without flags. Sizes that cannot fit stay as asked (check_splits refuses
    them with the item count)."""
    given = {k: int(v) for k, v in (given or {}).items() if k in SPLITS}
    full = {**DEFAULT_SIZES, **given}
    rest = [s for s in SPLITS if s not in given]
    left = (total or 0) - sum(given.values())
    if total is None or sum(full.values()) <= total or not rest or left < len(rest):
        return full
    weight = sum(_SHARES[s] for s in rest)
    out = dict(given)
    for split in rest[:-1]:
        out[split] = max(1, left * _SHARES[split] // weight)
    out[rest[-1]] = left - sum(out[s] for s in rest[:-1])
    return {s: out[s] for s in SPLITS}


def _fitting_flags(total: int | None) -> str:
    if total is None or total < len(SPLITS):
        return "ask for smaller --probe/--validation/--test sizes"
    sizes = fitted_sizes(total)
    return ("ask for sizes that fit, e.g. " +
            " ".join(f"--{s} {sizes[s]}" for s in SPLITS) +
            " (or leave the three out: they then fit the setting)")


def check_splits(setting: Setting, splits: Mapping[str, list[Item]],
                 sizes: Mapping[str, int]) -> None:
    """The splits a compile asked for, all there: each as large as asked (a setting with
    fewer items than asked is refused with its item count, never scored as an empty or
    short split) and no item in two splits."""
    short = [s for s in SPLITS if len(splits.get(s, [])) < int(sizes.get(s, 0))]
    if short:
        asked = " + ".join(f"{s} {int(sizes.get(s, 0))}" for s in SPLITS)
        total = sum(int(sizes.get(s, 0)) for s in SPLITS)
        size = item_count(setting)
        have = f"has {size} items" if size is not None else \
            "yields " + ", ".join(f"{len(splits.get(s, []))} {s}" for s in SPLITS)
        raise ConfigError(f"setting {setting.name!r} {have}; {asked} = {total} asked",
                          hint=_fitting_flags(size))
    seen: dict[str, str] = {}
    for split in SPLITS:
        for item in splits.get(split, []):
            if item.item_id in seen and seen[item.item_id] != split:
                raise ConfigError(f"setting {setting.name!r}: item {item.item_id!r} is in "
                                  f"both the {seen[item.item_id]} and the {split} split")
            if item.item_id in seen:
                raise ConfigError(f"setting {setting.name!r}: item {item.item_id!r} twice "
                                  f"in the {split} split")
            seen[item.item_id] = split


SettingFactory = Callable[[], Setting]
PLUGIN_GROUP = "tether.settings"
#: what else a setting spec may name besides a registered setting
SETTING_FORMS = "jsonl:PATH, csv:PATH, hf:PATH, parquet:PATH, module:attr"


def _load_plugins() -> None:
    """Settings other distributions declare (entry points `tether.settings`, read through
    tether.plugins): `name = "module:factory"` registers the factory as `name`, loaded
    when the setting is first built; `name = "module"` imports a module that registers
    itself. A declared name never replaces a registered one (tether's own declare theirs
    too, for other tools to find)."""
    for name, value in plugins.declared_names(PLUGIN_GROUP):
        if SETTINGS.registered(name):
            continue
        if ":" in value:
            SETTINGS.register(name, replace=False)(functools.partial(_declared, name, value))
            continue
        try:
            plugins.load(value)
        except ImportError as exc:
            raise ConfigError(f"setting plugin {name!r} ({value}) failed to import: "
                              f"{exc}") from None


#: the harness settings by name (a factory each: settings may be costly to build, so
#: they are built on first use)
SETTINGS: Registry[SettingFactory] = Registry("setting", load=_load_plugins,
                                              forms=SETTING_FORMS)


def register_setting(name: str) -> Callable[[SettingFactory], SettingFactory]:
    """Register a factory (settings may be costly to build: built on first use)."""
    return SETTINGS.register(name)


def setting_names() -> list[str]:
    return SETTINGS.names()


def get_setting(name: str) -> Setting:
    """The setting `name`: a registered one, a user's data (`jsonl:PATH`, `csv:PATH`,
    `hf:PATH`, `parquet:PATH`), `module:attr` (a Setting, a class or a factory), or one an
    installed distribution declares under the entry-point group `tether.settings`;
    ConfigError otherwise."""
    if not SETTINGS.registered(name):  # the other forms, before reading the entry points
        if name.partition(":")[0] in DATA_FORMATS:
            return build_data_setting(name)
        if ":" in name:
            return _from_attr(name)
    return SETTINGS.get(name)()


def same_setting(a: str, b: str) -> bool:
    """Whether two setting names name one setting, as admissibility compares a harness's
    stored setting with the one it runs on: a data setting's spec in either spelling of
    its metric (`;metric=f1`, or the old `?metric=f1` of harnesses written before)."""
    return _spelled(a) == _spelled(b)


def _spelled(name: str) -> str:
    if name.partition(":")[0] not in DATA_FORMATS:
        return name
    try:
        return data_spec(*parse_data_spec(name, announce=False))
    except ConfigError:
        return name  # not a well-formed data spec: compared as written


def _bundled(name: str) -> SettingFactory:
    return lambda: build_setting(name)


# The bundled settings (tether.systems.compile.settings), each built on first use.
for _name in SETTING_CLASSES:
    register_setting(_name)(_bundled(_name))


def item_for_task_data(data: Mapping[str, Any]) -> tuple[Any, Item]:
    """(setting, item) named by a harness suite Task's `data` (`setting`, `split`,
    `item_id`, `seed`, `sizes`; see tether.systems.compile.tasks). The item is rebuilt
    from the seed: item k of a split does not depend on the split sizes, so the bundled
    settings rebuild just that item; another setting's splits are regenerated."""
    setting = get_setting(str(data["setting"]))
    split, wanted, seed = str(data["split"]), str(data["item_id"]), int(data["seed"])
    index = wanted.rsplit("-", 1)[-1]
    if hasattr(setting, "make_item") and index.isdigit():
        item = setting.make_item(seed, split, int(index))
        if item.item_id == wanted:
            return setting, item
    for item in setting.splits(seed, dict(data.get("sizes") or {})).get(split, []):
        if item.item_id == wanted:
            return setting, item
    raise ConfigError(f"setting {data['setting']!r} has no item {wanted!r} "
                      f"in split {split!r} (seed {seed})")


def _as_setting(obj: Any, where: str) -> Setting:
    """A Setting instance as is; a class or factory called with no arguments."""
    made = obj() if isinstance(obj, type) or (callable(obj) and not hasattr(obj, "splits")) \
        else obj
    missing = [m for m in ("name", "splits", "observation", "image", "score", "inventory",
                           "public_vocabulary", "gold") if not hasattr(made, m)]
    if missing:
        raise ConfigError(f"{where} is not a setting: it has no {', '.join(missing)}",
                          hint="see docs/compile/settings.md for the Setting protocol")
    return made


def _from_attr(spec: str) -> Setting:
    import importlib

    module_name, _, attr = spec.partition(":")
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except ImportError as exc:
        raise ConfigError(f"setting {spec!r}: cannot import {module_name!r} ({exc})",
                          hint="the module must be importable (on PYTHONPATH or installed)"
                          ) from None
    except AttributeError:
        raise ConfigError(f"setting {spec!r}: {module_name} has no {attr!r}") from None
    return _as_setting(obj, f"setting {spec!r}")


def _declared(name: str, value: str) -> Setting:
    """The setting a plugin declares as "module:attr", loaded now."""
    try:
        loaded = plugins.load(value)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"setting plugin {name!r} ({value}) failed to import: "
                          f"{exc}") from None
    return _as_setting(loaded, f"setting plugin {name!r}")

