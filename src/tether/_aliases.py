"""Old module paths of the test doubles, still importable.

The doubles moved into `tether.testing`; specs such as
`scripted:tether.compile.compiler.scripted_teacher:competent` are in users' configs and
in published docs, so their old paths stay importable: importing one gives the module at
its new path (the same module object). Only these paths are aliased; product code uses
the new ones.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import importlib.abc

#: old module path -> where it lives now
ALIASES = {
    "tether.models.scripted": "tether.testing.scripted_models",
    "tether.instruments.scripted_check": "tether.testing.scripted_check",
    "tether.compile.compiler.scripted_teacher": "tether.testing.scripted_teacher",
    "tether.compile.scripted_student": "tether.testing.scripted_student",
    "tether.scene.loop.scripted_roles": "tether.testing.scripted_scene_roles",
    "tether.scene.minibpy": "tether.testing.minibpy",
}


def _target(name: str) -> str | None:
    """The new path of an old module path (a module under an aliased package too)."""
    for old, new in ALIASES.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old):]
    return None


def _is_old_parent(name: str) -> bool:
    """A package that exists only as a parent of old paths (tether.compile...)."""
    return any(old.startswith(name + ".") for old in ALIASES)


# The finder and loader are plain classes (the import system asks only for these
# methods): importlib.abc imports importlib.resources, tempfile and shutil, some 20 ms of
# every process that imports tether (the compile's page helper among them).
class _AliasLoader:
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        target = _target(spec.name)
        if target is not None:
            return importlib.import_module(target)
        module = types.ModuleType(spec.name, "an old package path, kept for its aliases")
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        del module  # an alias is the module at its new path, already executed


class _AliasFinder:
    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        del path, target
        if _target(fullname) is None and not _is_old_parent(fullname):
            return None
        if _target(fullname) is None and importlib.machinery.PathFinder.find_spec(
                fullname, _parent_path(fullname)) is not None:
            return None  # a package that really exists (tether.models) is never shadowed
        loader = cast("importlib.abc.Loader", _AliasLoader())  # it has the loader's methods
        return importlib.machinery.ModuleSpec(fullname, loader,
                                              is_package=_is_old_parent(fullname))


def _parent_path(name: str) -> list[str] | None:
    parent = sys.modules.get(name.rpartition(".")[0])
    return list(getattr(parent, "__path__", []) or []) or None


def install() -> None:
    """Put the finder after the standard ones (it never shadows a real module)."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(_AliasFinder())
