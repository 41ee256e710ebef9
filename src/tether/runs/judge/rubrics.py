"""Rubric files: named, versioned sets of yes/no behaviour rubrics for the trajectory judge.

A rubric file is JSON:

    {"name": "terminal-behaviour", "version": "1", "description": "...",
     "sets": [{"id": "prior", "title": "...",
               "rubrics": [{"id": "looping", "name": "Looping", "short": "...",
                            "definition": "...", "example": "..."}, ...]}, ...]}

Each set is judged in its own call (the paper judges its two sets separately). Rubric
ids are lowercase snake_case and unique across the file: they are the keys of the
judge's answer and of the stored flags. The bundled `terminal-behaviour` (v2) holds the
paper's 28 rubrics; a user passes their own file by path. Any defect in a file is a
ConfigError naming the file and the place, before anything is judged.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from tether.errors import ConfigError
from tether.textio import JSONError, loads, read_text

BUNDLED = {"terminal-behaviour": "terminal-behaviour-v2.json"}
_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_RUBRIC_KEYS = ("id", "name", "short", "definition", "example")


@dataclass(frozen=True)
class Rubric:
    id: str
    name: str
    short: str
    definition: str
    example: str


@dataclass(frozen=True)
class RubricSet:
    """One judge call's rubrics; `key` (`NAME/SET`) and `version` key the stored results."""

    file: str
    id: str
    title: str
    version: str
    rubrics: tuple[Rubric, ...]

    @property
    def key(self) -> str:
        return f"{self.file}/{self.id}"

    @property
    def ids(self) -> list[str]:
        return [r.id for r in self.rubrics]


@dataclass(frozen=True)
class RubricFile:
    name: str
    version: str
    description: str
    sets: tuple[RubricSet, ...]

    @property
    def rubrics(self) -> list[Rubric]:
        return [r for s in self.sets for r in s.rubrics]


def _fail(where: str, what: str) -> ConfigError:
    return ConfigError(f"rubric file {where}: {what}",
                       hint="see the bundled terminal-behaviour-v2.json for the format "
                            "(README, 'Judging runs')")


def _text(obj: dict[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, f"{key!r} must be a non-empty string")
    return value


def parse_rubric_file(data: Any, source: str) -> RubricFile:
    """A validated rubric file from its parsed JSON (`source` names it in errors)."""
    if not isinstance(data, dict):
        raise _fail(source, "the top level must be a JSON object")
    name, version = _text(data, "name", source), _text(data, "version", source)
    if not re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", name):
        raise _fail(source, f"name {name!r} must be lowercase letters, digits, . _ -")
    sets_raw = data.get("sets")
    if not isinstance(sets_raw, list) or not sets_raw:
        raise _fail(source, "'sets' must be a non-empty list")
    seen_sets: set[str] = set()
    seen: set[str] = set()
    sets = []
    for i, s in enumerate(sets_raw):
        where = f"{source} sets[{i}]"
        if not isinstance(s, dict):
            raise _fail(where, "a set must be an object")
        set_id = _text(s, "id", where)
        if not _ID.match(set_id) or set_id in seen_sets:
            raise _fail(where, f"set id {set_id!r} must be unique lowercase snake_case")
        seen_sets.add(set_id)
        rubrics_raw = s.get("rubrics")
        if not isinstance(rubrics_raw, list) or not rubrics_raw:
            raise _fail(where, "'rubrics' must be a non-empty list")
        rubrics = []
        for j, r in enumerate(rubrics_raw):
            rwhere = f"{where} rubrics[{j}]"
            if not isinstance(r, dict):
                raise _fail(rwhere, "a rubric must be an object")
            unknown = sorted(set(r) - set(_RUBRIC_KEYS))
            if unknown:
                raise _fail(rwhere, f"unknown key {unknown[0]!r} (keys: {', '.join(_RUBRIC_KEYS)})")
            values = {k: _text(r, k, rwhere) for k in _RUBRIC_KEYS}
            if not _ID.match(values["id"]):
                raise _fail(rwhere, f"id {values['id']!r} must be lowercase snake_case")
            if values["id"] in seen:
                raise _fail(rwhere, f"id {values['id']!r} appears twice")
            seen.add(values["id"])
            rubrics.append(Rubric(**values))
        sets.append(RubricSet(name, set_id, str(s.get("title") or set_id), version,
                              tuple(rubrics)))
    return RubricFile(name, version, str(data.get("description") or ""), tuple(sets))


def load_rubrics(name_or_path: str) -> RubricFile:
    """A bundled rubric file by name (`terminal-behaviour`) or a user's file by path."""
    if name_or_path in BUNDLED:
        text = (resources.files("tether.runs.judge") / "rubrics"
                / BUNDLED[name_or_path]).read_text(encoding="utf-8")
        return parse_rubric_file(json.loads(text), name_or_path)
    path = Path(name_or_path)
    if not path.exists():
        raise ConfigError(f"--rubrics {name_or_path!r} is neither a bundled rubric set nor "
                          "a file", hint=f"bundled: {', '.join(BUNDLED)}")
    text = read_text(path, what="rubric file")  # bounded; a FIFO or a device is refused
    try:
        data = loads(text)
    except JSONError as exc:
        raise _fail(str(path), f"not valid JSON ({exc})") from None
    return parse_rubric_file(data, str(path))
