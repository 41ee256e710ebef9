"""No import cycles between tether's modules.

The import-linter contract (pyproject.toml) orders the packages; inside a package two
modules could still import each other, usually hidden behind an import in a function
body. This builds the module graph with grimp (what import-linter itself uses), with
imports made only for type checking left out, and fails listing every group of modules
that import each other, directly or around a loop.
"""

from __future__ import annotations

import grimp
import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components


def module_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module, sorted."""
    modules = sorted(graph.modules)
    index = {m: i for i, m in enumerate(modules)}
    edges = [(index[m], index[t]) for m in modules
             for t in graph.find_modules_directly_imported_by(m) if t in index and t != m]
    rows, cols = zip(*edges, strict=True) if edges else ((), ())
    matrix = csr_matrix((np.ones(len(edges)), (rows, cols)), shape=(len(modules),) * 2)
    _, labels = connected_components(matrix, directed=True, connection="strong")
    groups: dict[int, list[str]] = {}
    for module, label in zip(modules, labels, strict=True):
        groups.setdefault(int(label), []).append(module)
    return sorted(g for g in groups.values() if len(g) > 1)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("tether", exclude_type_checking_imports=True, cache_dir=None)


def test_no_module_imports_itself_around_a_loop(graph: grimp.ImportGraph) -> None:
    cycles = module_cycles(graph)
    assert not cycles, "modules that import each other:\n" + "\n".join(
        " <-> ".join(group) for group in cycles)


def test_the_check_finds_a_cycle() -> None:
    """The check itself: a graph with a loop a -> b -> c -> a and a tail d -> a."""
    graph = grimp.ImportGraph()
    for name in ("x", "x.a", "x.b", "x.c", "x.d"):
        graph.add_module(name)
    for importer, imported in (("x.a", "x.b"), ("x.b", "x.c"), ("x.c", "x.a"),
                               ("x.d", "x.a")):
        graph.add_import(importer=importer, imported=imported)
    assert module_cycles(graph) == [["x.a", "x.b", "x.c"]]
