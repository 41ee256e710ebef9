"""Packages import each other through their faces.

A package's public API is what its `__init__` exports (lazily: tether.lazy). Another
package imports from there, never from one of its modules, so a package can rearrange its
modules without breaking its neighbours. The packages are the kernel's (tether.models,
tether.core, ...), each system (tether.systems.code, ...) and each package above them
(tether.studies, tether.integrations, tether.demo, tether.testing); a module directly under
tether (tether.errors, tether.params...) is a face of its own.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import grimp
import pytest

import tether

SRC = Path(tether.__file__).parent


def faces() -> list[str]:
    """Every package face: the packages under tether and under tether.systems, and the
    single modules directly under tether."""
    found = []
    for info in pkgutil.iter_modules([str(SRC)]):
        if info.name == "systems":
            found += [f"tether.systems.{s.name}"
                      for s in pkgutil.iter_modules([str(SRC / "systems")]) if s.ispkg]
        else:
            found.append(f"tether.{info.name}")
    return found


def face_of(module: str, known: list[str]) -> str:
    best = "tether"
    for face in known:
        if (module == face or module.startswith(face + ".")) and len(face) > len(best):
            best = face
    return best


def bypassing(graph: grimp.ImportGraph, known: list[str]) -> list[str]:
    """Cross-package imports that reach into another package's module."""
    found = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            a, b = face_of(importer, known), face_of(imported, known)
            if a != b and imported != b:
                found.append(f"{importer} -> {imported}")
    return found


def homes(face: str) -> dict[str, str]:
    """The face's table of exports (name -> home module), read from its source."""
    init = SRC.joinpath(*face.split(".")[1:], "__init__.py")
    for node in ast.parse(init.read_text()).body:
        if (isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "_HOMES"
                and node.value is not None):
            table: dict[str, str] = ast.literal_eval(node.value)
            return table
    return {}


def type_checking_imports(face: str) -> dict[str, str]:
    init = SRC.joinpath(*face.split(".")[1:], "__init__.py")
    found = {}
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                if isinstance(sub, ast.ImportFrom) and sub.module:
                    found.update({a.asname or a.name: sub.module for a in sub.names})
    return found


PACKAGE_FACES = ["tether"] + [f for f in faces()
                             if SRC.joinpath(*f.split(".")[1:], "__init__.py").exists()]


def test_no_package_reaches_into_another_ones_module() -> None:
    graph = grimp.build_graph("tether", cache_dir=None)
    found = bypassing(graph, faces())
    assert not found, f"{len(found)} imports bypass a face:\n" + "\n".join(found)


def test_the_check_sees_a_bypass() -> None:
    graph = grimp.ImportGraph()
    for name in ("tether", "tether.runs", "tether.runs.store", "tether.core",
                 "tether.core.trial", "tether.errors"):
        graph.add_module(name)
    graph.add_import(importer="tether.runs.store", imported="tether.core.trial")
    graph.add_import(importer="tether.runs.store", imported="tether.core")
    graph.add_import(importer="tether.runs.store", imported="tether.errors")
    graph.add_import(importer="tether.core.trial", imported="tether.core")
    known = ["tether.runs", "tether.core", "tether.errors"]
    assert bypassing(graph, known) == ["tether.runs.store -> tether.core.trial"]


@pytest.mark.parametrize("face", PACKAGE_FACES)
def test_a_face_names_each_export_once_for_readers_and_once_for_the_loader(face: str) -> None:
    table = homes(face)
    assert type_checking_imports(face) == table
    module = importlib.import_module(face)
    assert sorted(module.__all__) == sorted(table)


@pytest.mark.parametrize("face", PACKAGE_FACES)
def test_every_export_resolves_and_no_export_is_shadowed_by_a_module(face: str) -> None:
    module = importlib.import_module(face)
    package_dir = Path(module.__file__).parent
    submodules = {info.name for info in pkgutil.iter_modules([str(package_dir)])}
    assert not set(homes(face)) & submodules, "an export named like a module is shadowed " \
        "by the module once it is imported"
    for name, home in homes(face).items():
        assert getattr(module, name) is getattr(importlib.import_module(home), name)
