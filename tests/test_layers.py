"""The layout as import edges: 0 from the kernel into a system or above, 0 between
systems, 0 from a system into the packages above the systems, 0 into the root package
(`tether`, the user's API, which sits above everything and may import any part).

import-linter's contracts (pyproject.toml) enforce the same in `make test`; this counts
the edges with grimp so that the rule reads as numbers, and shows each offending edge.
Imports made only for type checking count too: a type is a dependency of the reader.
"""

from __future__ import annotations

import grimp
import pytest

SYSTEMS = ("code", "pages", "terminal", "compile", "scene")
ABOVE = ("tether.studies", "tether.integrations", "tether.demo", "tether.testing")


def part(module: str) -> str:
    """'root', 'kernel', 'system:NAME' or 'above' for a module of tether. The root package
    (`import tether`: the user's API) sits above everything and may reach any part."""
    if module == "tether":
        return "root"
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "systems":
        return f"system:{parts[2]}"
    if module == "tether.systems":
        return "systems"
    if any(module == a or module.startswith(a + ".") for a in ABOVE):
        return "above"
    return "kernel"


def edges(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    return sorted((m, t) for m in graph.modules
                  for t in graph.find_modules_directly_imported_by(m))


def offending(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {"kernel -> system or above": [],
                                   "system -> system": [], "system -> above": [],
                                   "anything -> the root": []}
    for importer, imported in pairs:
        a, b = part(importer), part(imported)
        if b == "root" and a != "root":
            found["anything -> the root"].append(f"{importer} -> {imported}")
        elif a == "kernel" and b != "kernel":
            found["kernel -> system or above"].append(f"{importer} -> {imported}")
        elif a.startswith("system:") and b.startswith("system:") and a != b:
            found["system -> system"].append(f"{importer} -> {imported}")
        elif a.startswith("system:") and b == "above":
            found["system -> above"].append(f"{importer} -> {imported}")
    return found


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("tether", cache_dir=None)


def test_every_system_is_a_package_of_its_own(graph: grimp.ImportGraph) -> None:
    assert {f"tether.systems.{s}" for s in SYSTEMS} <= set(graph.modules)


def test_no_edge_crosses_the_layout(graph: grimp.ImportGraph) -> None:
    found = offending(edges(graph))
    assert {k: len(v) for k, v in found.items()} == dict.fromkeys(found, 0), found


def test_the_count_sees_a_crossing() -> None:
    pairs = [("tether.runs.x", "tether.systems.code.y"),
             ("tether.systems.pages.a", "tether.systems.code.b"),
             ("tether.systems.scene.a", "tether.testing.minibpy"),
             ("tether.systems.scene.a", "tether.core"), ("tether.demo.cli", "tether.systems"),
             ("tether.runs.launch", "tether"), ("tether", "tether.systems.pages")]
    assert {k: len(v) for k, v in offending(pairs).items()} == {
        "kernel -> system or above": 1, "system -> system": 1, "system -> above": 1,
        "anything -> the root": 1}
