"""The four offline harness settings (issue 13): `docs` (DocVQA-like), `shapes`
(BLINK-like), `flags` (InfoSeek-like) and `slides` (SlideVQA-like).

Each is a class with the `tether.compile.setting.Setting` interface; `get_setting(name)`
builds one. Modules import lazily so that using one setting does not load the data (or
the optional packages) of the others.
"""

from __future__ import annotations

import importlib
from typing import Any

from tether.errors import ConfigError

#: setting name -> (module, class) under this package.
SETTING_CLASSES: dict[str, tuple[str, str]] = {
    "docs": ("docs", "DocsSetting"),
    "shapes": ("shapes", "ShapesSetting"),
    "flags": ("flags", "FlagsSetting"),
}


def setting_names() -> list[str]:
    return sorted(SETTING_CLASSES)


def get_setting(name: str, **kwargs: Any) -> Any:
    """A new instance of the named setting."""
    if name not in SETTING_CLASSES:
        raise ConfigError(
            f"unknown harness setting {name!r}", hint=f"known: {', '.join(setting_names())}"
        )
    module, cls = SETTING_CLASSES[name]
    try:
        mod = importlib.import_module(f"{__name__}.{module}")
    except ImportError as exc:
        raise ConfigError(
            f"setting {name!r} needs a package that is not installed: {exc.name}",
            hint="pip install -e '.[harness]' (or run scripts/setup.sh)",
        ) from exc
    return getattr(mod, cls)(**kwargs)
