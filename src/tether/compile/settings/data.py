"""A setting read from the user's own file: `jsonl:PATH`, `csv:PATH`.

    tether compile --setting jsonl:cities.jsonl --metric exact ...

A row is one item:

    {"id": "c1", "question": "Which city is the capital of Wakanda?",
     "answer": ["Birnin Zana", "Golden City"],        # a string or a list of accepted ones
     "image": "img/c1.png",                            # optional, relative to the file
     "context": "Birnin Zana is the capital ..."}      # any other text field

`id`, `question` and `answer` are required (`answer` in a CSV file is one string; a
cell holding a JSON list is read as the list). The bare student sees the question (and
the image, when it takes images). Every other field is a resource the harness may
enable (`"resources": {"context": true}`), and, once enabled, an observation field its
prompts may name (`{context}`). Gold never enters an observation.

Splits: the rows are shuffled by the split seed and cut in order into probe, validation
and test, so the splits are disjoint by construction; a split asked larger than the rows
left for it comes up short here, and the compiler refuses it with the item count.

The spec names the file and, optionally, the metric: `jsonl:PATH?metric=f1`
(`tether compile --metric f1` writes this). The metric is `exact` (default), `anls`,
`f1`, `numeric`, `choice` or `module:function` (data_metrics.py); the aggregation
follows from it. A bad file is a ConfigError naming the line.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tether.compile.setting import SPLITS, Item
from tether.compile.settings.base import check_resources
from tether.compile.settings.data_metrics import Metric, resolve_metric
from tether.errors import ConfigError
from tether.textio import JSONError, loads

__all__ = ["FORMATS", "DataSetting", "canonical_spec", "parse_spec", "read_rows"]

FORMATS = ("jsonl", "csv")
_REQUIRED = ("id", "question", "answer")
_METRIC_SUFFIX = "?metric="


def parse_spec(spec: str) -> tuple[str, Path, str]:
    """(format, path, metric) of `FORMAT:PATH[?metric=NAME]`."""
    fmt, _, rest = spec.partition(":")
    if fmt not in FORMATS or not rest:
        raise ConfigError(f"not a data setting spec: {spec!r}",
                          hint="write jsonl:PATH or csv:PATH (optionally ?metric=NAME)")
    path, sep, metric = rest.rpartition(_METRIC_SUFFIX)
    if not sep:
        path, metric = rest, "exact"
    return fmt, Path(path), metric


def canonical_spec(spec: str, *, base: Path | None = None, metric: str | None = None) -> str:
    """The spec with an absolute path (a build resumed or reported from elsewhere finds
    the file) and the metric written out when it is not the default."""
    fmt, path, named = parse_spec(spec)
    if not path.is_absolute():
        path = (base or Path.cwd()) / path
    chosen = metric or named
    resolve_metric(chosen)  # an unknown metric is refused before anything runs
    suffix = "" if chosen == "exact" else f"{_METRIC_SUFFIX}{chosen}"
    return f"{fmt}:{path.resolve()}{suffix}"


def _where(path: Path, line: int) -> str:
    return f"{path}:{line}"


def _answers(value: Any, where: str) -> list[str]:
    if isinstance(value, str) and value.startswith("["):
        try:
            value = loads(value)
        except JSONError:
            pass  # an answer that merely starts with a bracket
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list) or not value or not all(
            isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
        raise ConfigError(f"{where}: 'answer' must be a string or a non-empty list of strings")
    answers = [str(v) for v in value]
    if not all(a.strip() for a in answers):
        raise ConfigError(f"{where}: 'answer' has an empty accepted answer")
    return answers


def _jsonl_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = loads(line)
        except JSONError as exc:
            raise ConfigError(f"{_where(path, number)}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise ConfigError(f"{_where(path, number)}: a row must be a JSON object")
        rows.append((number, row))
    return rows


def _csv_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(text.splitlines())
    # line 1 is the header: data row k sits on line k + 1 (no multi-line cells counted)
    return [(number, {k: v for k, v in row.items() if k is not None and v not in (None, "")})
            for number, row in enumerate(reader, 2)]


def read_rows(fmt: str, path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, row) of every row; ConfigError for an unreadable file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no such data file: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    rows = _jsonl_rows(path, text) if fmt == "jsonl" else _csv_rows(path, text)
    if not rows:
        raise ConfigError(f"{path}: no rows")
    return rows


def _item(path: Path, number: int, row: dict[str, Any]) -> Item:
    where = _where(path, number)
    missing = [k for k in _REQUIRED if k not in row]
    if missing:
        raise ConfigError(f"{where}: missing {', '.join(map(repr, missing))}",
                          hint="a row needs id, question and answer")
    item_id, question = str(row["id"]).strip(), row["question"]
    if not item_id:
        raise ConfigError(f"{where}: empty 'id'")
    if not isinstance(question, str) or not question.strip():
        raise ConfigError(f"{where}: 'question' must be a non-empty string")
    data: dict[str, Any] = {"answers": _answers(row["answer"], where), "line": number}
    if row.get("image") is not None:
        image = path.parent / str(row["image"])
        if not image.is_file():
            raise ConfigError(f"{where}: image {row['image']!r} does not exist ({image})")
        data["image"] = str(image)
    fields: dict[str, Any] = {}
    for key, value in row.items():
        if key in (*_REQUIRED, "image"):
            continue
        if isinstance(value, (dict, bool)) or value is None:
            raise ConfigError(f"{where}: field {key!r} must be text, a number or a list")
        fields[key] = value
    data["fields"] = fields
    return Item(item_id, question, data)


class DataSetting:
    """The rows of one file as a setting (see the module docstring)."""

    def __init__(self, spec: str) -> None:
        fmt, path, metric_name = parse_spec(spec)
        self.name = spec
        self.path = path
        self.metric: Metric = resolve_metric(metric_name)
        #: graded metrics (anls, f1, a function's float) aggregate as a mean score
        self.aggregation = self.metric.aggregation
        items: list[Item] = []
        seen: dict[str, int] = {}
        for number, row in read_rows(fmt, path):
            item = _item(path, number, row)
            if item.item_id in seen:
                raise ConfigError(f"{_where(path, number)}: duplicate id {item.item_id!r} "
                                  f"(first on line {seen[item.item_id]})")
            seen[item.item_id] = number
            items.append(item)
        self.items = items
        self.offered_resources: tuple[str, ...] = tuple(sorted(
            {k for item in items for k in item.data["fields"]}))

    @property
    def description(self) -> str:
        """What the teacher reads about the task (compiler/prompts.py: setting_text)."""
        fields = ", ".join(self.offered_resources) or "none"
        return (f"Questions from the user's file {self.path.name} ({len(self.items)} rows), "
                f"scored by the {self.metric.name} metric. Each item has a question"
                f"{' and sometimes an image' if any('image' in i.data for i in self.items) else ''}"
                f". Per-item fields a harness may enable as resources (each becomes an "
                f"observation field of the same name): {fields}.")

    @property
    def metric_text(self) -> str:
        kind = "graded, partial credit" if self.metric.graded else "pass/fail per item"
        return f"{self.metric.name} ({kind})"

    def __len__(self) -> int:
        return len(self.items)

    def splits(self, seed: int, sizes: Mapping[str, int]) -> dict[str, list[Item]]:
        order = list(self.items)
        random.Random(int(seed)).shuffle(order)
        out: dict[str, list[Item]] = {}
        start = 0
        for split in SPLITS:
            n = max(0, int(sizes.get(split, 0)))
            out[split] = order[start:start + n]
            start += n
        return out

    def observation(self, item: Item, resources: Mapping[str, Any]) -> dict[str, Any]:
        check_resources(self.name, resources, self.offered_resources)
        obs: dict[str, Any] = {"item_id": item.item_id, "question": item.question}
        fields = item.data["fields"]
        for name, spec in resources.items():
            if spec and name in fields:
                obs[name] = fields[name]
        return obs

    def image(self, item: Item) -> bytes | None:
        where = item.data.get("image")
        return Path(where).read_bytes() if where else None

    def score(self, answer: str, item: Item) -> float:
        return self.metric.score(answer, item.data["answers"], item)

    def gold(self, item: Item) -> list[str]:
        return list(item.data["answers"])

    def inventory(self) -> list[str]:
        return []

    def public_vocabulary(self) -> list[str]:
        # the options a multiple-choice row lists are named by the task itself
        return sorted({str(c) for item in self.items
                       for c in item.data["fields"].get("choices", []) or []
                       if isinstance(item.data["fields"].get("choices"), list)})
