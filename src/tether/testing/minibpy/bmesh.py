"""bmesh of the minibpy TEST DOUBLE: what the scene suite's base scripts use.

`bmesh.new()`, the primitives `bmesh.ops.create_cube / create_uvsphere / create_cone /
create_grid` and `BMesh.to_mesh(mesh)`. Vertex and face counts and the vertex positions
(as a set) are Blender 4.2's for the arguments the suite passes (compared with bpy by
tests/systems/scene/test_minibpy_suite.py through mesh counts and bounds); positions are computed
in float64 and stored as C floats, so they may differ from Blender's float arithmetic in
the last bit. Vertex order is not Blender's for the UV sphere (nothing in the state
capture or the rasterizer depends on it).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

from tether.testing.minibpy.values import Vector


class BMVert:
    """A vertex; `co` is a mutable Vector (`v.co.z += 1` writes through, as on bmesh)."""

    def __init__(self, co: tuple[float, float, float]) -> None:
        self.co = Vector(co)


class BMVertSeq:
    def __init__(self) -> None:
        self._items: list[BMVert] = []

    def __iter__(self) -> Iterator[BMVert]:
        return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i: int) -> BMVert:
        return self._items[i]

    def ensure_lookup_table(self) -> None:
        pass


class BMesh:
    def __init__(self) -> None:
        self.verts = BMVertSeq()
        self.faces: list[tuple[int, ...]] = []

    def _add(self, coords: list[tuple[float, float, float]],
             faces: Sequence[tuple[int, ...]]) -> dict[str, Any]:
        offset = len(self.verts)
        new = [BMVert(c) for c in coords]
        self.verts._items.extend(new)
        self.faces.extend(tuple(offset + i for i in f) for f in faces)
        return {"verts": new}

    def to_mesh(self, mesh: Any) -> None:
        mesh.from_pydata([tuple(v.co) for v in self.verts], [], self.faces)

    def free(self) -> None:
        self.verts = BMVertSeq()
        self.faces = []


def new(use_operators: bool = True) -> BMesh:
    return BMesh()


class _Ops:
    """bmesh.ops: the primitive creators (keyword arguments, as bmesh.ops requires)."""

    @staticmethod
    def create_cube(bm: BMesh, *, size: float = 1.0, **_: Any) -> dict[str, Any]:
        h = size / 2
        coords = [(x, y, z) for x in (-h, h) for y in (-h, h) for z in (-h, h)]
        faces = [(0, 1, 3, 2), (2, 3, 7, 6), (6, 7, 5, 4), (4, 5, 1, 0), (2, 6, 4, 0),
                 (7, 3, 1, 5)]
        return bm._add(coords, faces)

    @staticmethod
    def create_uvsphere(bm: BMesh, *, u_segments: int, v_segments: int, radius: float,
                        **_: Any) -> dict[str, Any]:
        """Rings at latitudes -90 + 180 k / v (k = 1 .. v-1), each of u vertices at
        longitudes 360 j / u; the two poles; quads between rings, triangles at the poles."""
        u, v = u_segments, v_segments
        coords = []
        for k in range(1, v):
            lat = math.pi * k / v - math.pi / 2
            for j in range(u):
                lon = 2 * math.pi * j / u
                coords.append((radius * math.cos(lat) * math.cos(lon),
                               radius * math.cos(lat) * math.sin(lon), radius * math.sin(lat)))
        south, north = len(coords), len(coords) + 1
        coords += [(0.0, 0.0, -radius), (0.0, 0.0, radius)]
        faces: list[tuple[int, ...]] = []
        for j in range(u):
            nj = (j + 1) % u
            faces.append((south, nj, j))
            for k in range(v - 2):
                a, b = k * u, (k + 1) * u
                faces.append((a + j, a + nj, b + nj, b + j))
            top = (v - 2) * u
            faces.append((top + j, top + nj, north))
        return bm._add(coords, faces)

    @staticmethod
    def create_cone(bm: BMesh, *, segments: int, radius1: float, radius2: float,
                    depth: float, cap_ends: bool = False, **_: Any) -> dict[str, Any]:
        """A ring of `segments` vertices at z = -depth/2 (the first on +y), and one at
        +depth/2: a single tip vertex when radius2 is 0, as Blender makes it."""
        n = segments

        def ring(r: float, z: float) -> list[tuple[float, float, float]]:
            return [(r * math.sin(2 * math.pi * j / n), r * math.cos(2 * math.pi * j / n), z)
                    for j in range(n)]

        coords = ring(radius1, -depth / 2)
        faces: list[tuple[int, ...]] = []
        if radius2 == 0:
            coords.append((0.0, 0.0, depth / 2))
            faces += [(j, n, (j + 1) % n) for j in range(n)]
        else:
            coords += ring(radius2, depth / 2)
            faces += [(j, n + j, n + (j + 1) % n, (j + 1) % n) for j in range(n)]
            if cap_ends:
                faces.append(tuple(range(n, 2 * n)))
        if cap_ends:
            faces.append(tuple(reversed(range(n))))
        return bm._add(coords, faces)

    @staticmethod
    def create_grid(bm: BMesh, *, x_segments: int, y_segments: int, size: float,
                    **_: Any) -> dict[str, Any]:
        """(x_segments + 1) x (y_segments + 1) vertices spanning -size .. size (x fastest)."""
        nx, ny = x_segments + 1, y_segments + 1
        coords = [(-size + 2 * size * i / x_segments, -size + 2 * size * j / y_segments, 0.0)
                  for j in range(ny) for i in range(nx)]
        faces = [(j * nx + i, j * nx + i + 1, (j + 1) * nx + i + 1, (j + 1) * nx + i)
                 for j in range(y_segments) for i in range(x_segments)]
        return bm._add(coords, faces)


ops = _Ops()

__all__ = ["BMesh", "new", "ops"]
