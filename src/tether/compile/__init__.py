"""Harness compilation (System 3): the harness artifact, its runtime, admissibility."""

from tether.compile.setting import (
    DEFAULT_SIZES,
    SPLITS,
    Item,
    Setting,
    ToySetting,
    get_setting,
    register_setting,
    setting_names,
)

__all__ = ["DEFAULT_SIZES", "SPLITS", "Item", "Setting", "ToySetting", "get_setting",
           "register_setting", "setting_names"]
