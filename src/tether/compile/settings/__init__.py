"""The four offline harness settings: `docs` (DocVQA-like), `shapes`
(BLINK-like), `flags` (InfoSeek-like), `slides` (SlideVQA-like).

Each is a class with the `tether.compile.setting.Setting` interface, named here in
SETTING_CLASSES; the setting registry (setting.py) builds them through `build_setting`, so
`tether.compile.get_setting("docs")` builds one. A setting's module is imported only when
it is built, so using one setting does not load the data (or need the optional packages)
of the others; a missing package is a ConfigError with the fix.
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
    "slides": ("slides", "SlidesSetting"),
}


def build_setting(name: str, **kwargs: Any) -> Any:
    """A new instance of one of this package's settings (kwargs: e.g. an OCR engine)."""
    module, cls = SETTING_CLASSES[name]
    try:
        # deferred: each setting's module loads its data and optional packages
        mod = importlib.import_module(f"{__name__}.{module}")
    except ImportError as exc:
        raise ConfigError(
            f"setting {name!r} needs a package that is not installed: {exc.name}",
            hint="pip install -e '.[harness]' (or run scripts/setup.sh)",
        ) from exc
    return getattr(mod, cls)(**kwargs)


def build_data_setting(spec: str) -> Any:
    """The setting of a user's data file (`jsonl:PATH`, `csv:PATH`; see data.py)."""
    # deferred like the bundled settings: setting.py names this package, never its modules
    return importlib.import_module(f"{__name__}.data").DataSetting(spec)
