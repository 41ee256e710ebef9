"""Base classes of the minibpy test double: structs, IDs, typed properties, collections.

What the write tracer and the state capture rely on is mimicked exactly: `id_data`,
`path_from_id()`, `id_type`, `is_embedded_data`, `users`, the class names that appear in
trace reasons, and the error types bpy raises (AttributeError for an unknown attribute,
TypeError / ValueError for a wrong value, KeyError for a missing name).
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Iterator
from typing import Any

from tether.testing.minibpy.values import FLT_MAX, as_bool, as_float, as_floats, clamp, view

_MISSING = object()


# ----------------------------------------------------------------------------- properties


class Prop:
    """A typed RNA property stored in the struct's `_v` dict (default copied on first read)."""

    def __init__(self, default: Any) -> None:
        self.default = default
        self.name = "value"  # (set by __set_name__ when declared in a class)

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def raw(self, obj: Any) -> Any:
        if self.name not in obj._v:
            obj._v[self.name] = _copy.copy(self.default)
        return obj._v[self.name]

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        return self if obj is None else self.raw(obj)

    def __set__(self, obj: Any, value: Any) -> None:
        obj._v[self.name] = self.convert(obj, value)

    def convert(self, obj: Any, value: Any) -> Any:
        return value

    def what(self, obj: Any) -> str:
        return f"{type(obj).__name__}.{self.name}"


class FloatProp(Prop):
    def __init__(self, default: float, lo: float = -FLT_MAX, hi: float = FLT_MAX) -> None:
        super().__init__(clamp(default, -FLT_MAX, FLT_MAX))
        self.lo, self.hi = lo, hi

    def convert(self, obj: Any, value: Any) -> float:
        return clamp(as_float(value, self.what(obj)), self.lo, self.hi)


class IntProp(Prop):
    def __init__(self, default: int, lo: int = -(2**31), hi: int = 2**31 - 1) -> None:
        super().__init__(default)
        self.lo, self.hi = lo, hi

    def convert(self, obj: Any, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"bpy_struct: item.attr = val: {self.what(obj)} expected an int "
                            f"type, not {type(value).__name__}")
        return min(max(value, self.lo), self.hi)


class BoolProp(Prop):
    def convert(self, obj: Any, value: Any) -> bool:
        return as_bool(value, self.what(obj))


class EnumProp(Prop):
    def __init__(self, default: str, items: tuple[str, ...]) -> None:
        super().__init__(default)
        self.items = items

    def convert(self, obj: Any, value: Any) -> str:
        if value not in self.items:
            raise TypeError(f"bpy_struct: item.attr = val: enum \"{value}\" not found in "
                            f"{self.items!r}")
        return value


class ArrayProp(Prop):
    """A float vector (Vector, Euler, Color or bpy_prop_array view on the stored list)."""

    def __init__(self, cls: type, default: tuple[float, ...], lo: float = -FLT_MAX,
                 hi: float = FLT_MAX) -> None:
        super().__init__([clamp(v, -FLT_MAX, FLT_MAX) for v in default])
        self.cls, self.lo, self.hi = cls, lo, hi

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        return self if obj is None else view(self.cls, self.raw(obj), self.lo, self.hi)

    def __set__(self, obj: Any, value: Any) -> None:
        self.raw(obj)[:] = as_floats(value, len(self.default), self.lo, self.hi)


# ----------------------------------------------------------------------------- structs


class bpy_struct:  # noqa: N801 (bpy's name)
    """A struct inside an ID: knows its ID and its RNA path from it."""

    def __init__(self, owner: ID | None = None, path: str = "") -> None:
        object.__setattr__(self, "_v", {})
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_path", path)

    @property
    def id_data(self) -> Any:
        return self._owner

    def path_from_id(self, prop: str = "") -> str:
        if not self._path and not isinstance(self, ID):
            raise ValueError(f"{type(self).__name__} has no path from its ID")
        return self._path + (f".{prop}" if prop else "")

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_") or hasattr(type(self), name):
            object.__setattr__(self, name, value)
            return
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        name = getattr(self, "name", "")
        return f"<bpy_struct, {type(self).__name__}({name!r}) (minibpy)>"


class ID(bpy_struct):
    """A data block: a name unique in its bpy.data collection, users, ID properties."""

    id_type = ""
    _data_name = ""  # the bpy.data attribute holding this type
    is_embedded_data = False

    def __init__(self, main: Any, name: str) -> None:
        super().__init__()
        object.__setattr__(self, "_main", main)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_props", {})  # ID properties: obj["key"]

    @property
    def id_data(self) -> Any:
        return self

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"bpy_struct: item.attr = val: {type(self).__name__}.name expected "
                            f"a string type, not {type(value).__name__}")
        self._main.rename(self, value)

    @property
    def users(self) -> int:
        return self._main.users_of(self)

    def copy(self) -> Any:
        dup = _copy.copy(self)
        object.__setattr__(dup, "_v", _copy.deepcopy(self._v))
        object.__setattr__(dup, "_props", _copy.deepcopy(self._props))
        self._copy_into(dup)
        self._main.collection(self._data_name).add(dup, self._name)
        return dup

    def _copy_into(self, dup: Any) -> None:
        """Type-specific parts of copy(): embedded data, owned structs."""

    def __getitem__(self, key: str) -> Any:
        if key not in self._props:
            raise KeyError(f'bpy_struct[key]: key "{key}" not found')
        return self._props[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError("bpy_struct[key] = val: ID property key must be a string")
        self._props[key] = value

    def get(self, key: str, default: Any = None) -> Any:
        return self._props.get(key, default)

    def keys(self) -> list[str]:
        return list(self._props)

    def __repr__(self) -> str:
        return f"bpy.data.{self._data_name}[{self._name!r}] (minibpy)"


class bpy_prop_collection:  # noqa: N801 (bpy's name)
    """Named structs, indexed by name or position (not a bpy_struct, as in bpy)."""

    def __init__(self) -> None:
        self._items: list[Any] = []

    def _list(self) -> list[Any]:
        return self._items

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._list()))

    def __len__(self) -> int:
        return len(self._list())

    def _lookup(self, key: str) -> Any:
        for item in self._list():
            if getattr(item, "name", None) == key:
                return item
        return _MISSING

    def __getitem__(self, key: int | str) -> Any:
        if isinstance(key, str):
            found = self._lookup(key)
            if found is _MISSING:
                raise KeyError(f'bpy_prop_collection[key]: key "{key}" not found')
            return found
        if isinstance(key, int) and not isinstance(key, bool):
            items = self._list()
            if not -len(items) <= key < len(items):
                raise IndexError(f"bpy_prop_collection[index]: index {key} out of range, "
                                 f"size {len(items)}")
            return items[key]
        raise TypeError(f"bpy_prop_collection[key]: invalid key, must be a string or an "
                        f"int, not {type(key).__name__}")

    def get(self, key: str, default: Any = None) -> Any:
        found = self._lookup(key)
        return default if found is _MISSING else found

    def __contains__(self, key: str) -> bool:
        return self._lookup(key) is not _MISSING

    def find(self, key: str) -> int:
        for i, item in enumerate(self._list()):
            if getattr(item, "name", None) == key:
                return i
        return -1

    def keys(self) -> list[str]:
        return [item.name for item in self._list()]

    def values(self) -> list[Any]:
        return list(self._list())

    def items(self) -> list[tuple[str, Any]]:
        return [(item.name, item) for item in self._list()]
