"""Property values of the minibpy test double: float32 storage, RNA-style clamping, vectors.

Blender stores RNA floats as C floats, so a write of 0.3 reads back 0.30000001192092896;
minibpy rounds through float32 the same way (struct, no numpy) so that traces and state
match real bpy bit for bit. Vector / Euler / Color (mathutils) and bpy_prop_array (node
socket arrays) are views on a list owned by a struct: writes go through, as on bpy, and a
fresh view is returned on each attribute access.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable
from typing import Any

FLT_MAX = 3.4028234663852886e38


def f32(x: float) -> float:
    """x rounded to the nearest C float (as Blender stores RNA floats)."""
    x = min(max(float(x), -FLT_MAX), FLT_MAX) if math.isfinite(x) else float(x)
    return struct.unpack("f", struct.pack("f", x))[0]


def as_float(value: Any, what: str) -> float:
    if isinstance(value, str) or not isinstance(value, int | float):
        raise TypeError(f"bpy_struct: item.attr = val: {what} expected a float type, "
                        f"not {type(value).__name__}")
    return float(value)


def as_bool(value: Any, what: str) -> bool:
    if value is True or value is False or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise TypeError(f"bpy_struct: item.attr = val: {what} expected True/False or 0/1, "
                    f"not {type(value).__name__}")


def clamp(x: float, lo: float, hi: float) -> float:
    return f32(min(max(x, lo), hi))


def as_floats(value: Any, n: int, lo: float, hi: float) -> list[float]:
    if isinstance(value, str | int | float):
        raise ValueError(f"bpy_struct: item.attr = val: sequence expected at dimension 1, "
                         f"not '{type(value).__name__}'")
    items = list(value)
    if len(items) != n:
        raise ValueError(f"bpy_struct: item.attr = val: sequences of dimension 0 should "
                         f"contain {n} items, not {len(items)}")
    out = []
    for v in items:
        if isinstance(v, str) or not isinstance(v, int | float):
            raise TypeError("bpy_struct: item.attr = val: expected sequence items of type "
                            f"float, not {type(v).__name__}")
        out.append(clamp(float(v), lo, hi))
    return out


class _Array:
    """A view on `store` (a list of floats) with per-component clamping."""

    _names: dict[str, int] = {}
    _fmt = "<{} ({})>"

    def __init__(self, store: list[float], lo: float = -FLT_MAX, hi: float = FLT_MAX) -> None:
        object.__setattr__(self, "_store", store)
        object.__setattr__(self, "_lo", lo)
        object.__setattr__(self, "_hi", hi)

    def __len__(self) -> int:
        return len(self._store)

    def __iter__(self):
        return iter(list(self._store))

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return tuple(self._store[i])
        if not -len(self._store) <= i < len(self._store):
            raise IndexError("array[index]: index out of range")
        return self._store[i]

    def __setitem__(self, i: int | slice, value: Any) -> None:
        if isinstance(i, slice):
            idx = range(*i.indices(len(self._store)))
            vals = list(value)
            if len(vals) != len(idx):
                raise ValueError("slice assignment: size mismatch")
            for j, v in zip(idx, vals, strict=True):
                self[j] = v
            return
        if not -len(self._store) <= i < len(self._store):
            raise IndexError(f"{type(self).__name__.lower()}[index] = x: assignment index "
                             "out of range")
        self._store[i] = clamp(as_float(value, "array item"), self._lo, self._hi)

    def __getattr__(self, name: str) -> Any:
        index = type(self)._names.get(name)
        if index is None or index >= len(self._store):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self._store[index]

    def __setattr__(self, name: str, value: Any) -> None:
        index = type(self)._names.get(name)
        if index is None or index >= len(self._store):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self[index] = value

    def __eq__(self, other: object) -> bool:
        try:
            return list(self) == [float(v) for v in other]
        except TypeError:
            return NotImplemented

    # None makes the type unhashable (bpy's mutable vectors are); typeshed says method
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} ({', '.join(f'{v:.4f}' for v in self._store)})>"

    def to_tuple(self) -> tuple[float, ...]:
        return tuple(self._store)

    def copy(self) -> Any:
        return type(self)(list(self._store))

    # Arithmetic gives free-standing values (no owner), as mathutils does.
    def _other(self, other: Any) -> list[float]:
        vals = [float(v) for v in other]
        if len(vals) != len(self._store):
            raise ValueError("vectors must have the same size")
        return vals

    def __add__(self, other: Any) -> Any:
        return type(self)([a + b for a, b in zip(self._store, self._other(other), strict=True)])

    def __sub__(self, other: Any) -> Any:
        return type(self)([a - b for a, b in zip(self._store, self._other(other), strict=True)])

    def __mul__(self, k: float) -> Any:
        return type(self)([a * float(k) for a in self._store])

    __rmul__ = __mul__

    def __neg__(self) -> Any:
        return type(self)([-a for a in self._store])

    # In place: writes through to the owner, like mathutils' wrapped vectors.
    def __iadd__(self, other: Any) -> Any:
        self[:] = [a + b for a, b in zip(self._store, self._other(other), strict=True)]
        return self

    def __isub__(self, other: Any) -> Any:
        self[:] = [a - b for a, b in zip(self._store, self._other(other), strict=True)]
        return self

    def __imul__(self, k: float) -> Any:
        self[:] = [a * float(k) for a in self._store]
        return self


class Vector(_Array):
    _names = {"x": 0, "y": 1, "z": 2, "w": 3}

    def __init__(self, values: Iterable[float] = (0.0, 0.0, 0.0)) -> None:
        super().__init__([f32(v) for v in values])  # free-standing (mathutils is float32)

    @property
    def length(self) -> float:
        return math.sqrt(sum(v * v for v in self._store))


class Euler(Vector):
    _names = {"x": 0, "y": 1, "z": 2}


class Color(Vector):
    _names = {"r": 0, "g": 1, "b": 2}


class bpy_prop_array(_Array):  # noqa: N801 (the bpy name: it appears in trace reasons)
    _names = {}


def view(cls: type[_Array], store: list[float], lo: float = -FLT_MAX, hi: float = FLT_MAX) -> Any:
    """A view of cls on an owner's store (no copy)."""
    obj = cls.__new__(cls)
    _Array.__init__(obj, store, lo, hi)
    return obj
