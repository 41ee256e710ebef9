"""A setting read from the user's own data: `jsonl:PATH`, `csv:PATH`, `hf:PATH`,
`parquet:PATH`.

    tether compile --setting jsonl:cities.jsonl --metric exact ...

A row is one item:

    {"id": "c1", "question": "Which city is the capital of Wakanda?",
     "answer": ["Birnin Zana", "Golden City"],        # a string or a list of accepted ones
     "image": "img/c1.png",                            # optional, relative to the file
     "context": "Birnin Zana is the capital ..."}      # any other text field

`id`, `question` and `answer` are required (`answer` in a CSV file is one string; a
cell holding a JSON list is read as the list).

`hf:PATH` (a `save_to_disk` directory, or a local parquet/JSONL/CSV file) and
`parquet:PATH` are read through the `datasets` library (the optional extra `datasets`;
tether.suites.dataset_rows) with the same row mapping: a column is a field, a null is a field
left out, an `image` column holds a path (relative to the dataset's directory, or the
file's) or embedded image bytes. Their errors name the row (from 1) instead of a line.

The bare student sees the question (and the image, when it takes images). Every other
field is a resource the harness may enable (`"resources": {"context": true}`), and, once
enabled, an observation field its prompts may name (`{context}`). Gold never enters an observation.

Splits: the rows are shuffled by the split seed and cut in order into probe, validation
and test, so the splits are disjoint by construction; a split asked larger than the rows
left for it comes up short here, and the compiler refuses it with the item count. The
setting says how many rows it has (`__len__`), so sizes left to the defaults are fitted
to a small file (setting.fitted_sizes: 12 rows are 3 / 3 / 6).

The spec names the file and, optionally, the metric: `jsonl:PATH;metric=f1` (the one
spec syntax; `tether compile --metric f1` writes this; the older `jsonl:PATH?metric=f1`
is still read, with a notice). The metric is `exact` (default), `anls`,
`f1`, `numeric`, `choice` or `module:function` (data_metrics.py); the aggregation
follows from it. A bad file is a ConfigError naming the line.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tether.errors import ConfigError
from tether.suites import FORMATS as DATASET_FORMATS, load_dataset_rows
from tether.systems.compile.setting import SPLITS, Item
from tether.systems.compile.settings import DATA_FORMATS, data_spec, split_data_spec
from tether.systems.compile.settings.base import check_resources
from tether.systems.compile.settings.data_metrics import Metric, resolve_metric
from tether.textio import JSONError, loads

__all__ = ["FORMATS", "DataSetting", "canonical_spec", "parse_spec", "read_rows"]

FORMATS = DATA_FORMATS
_REQUIRED = ("id", "question", "answer")


def parse_spec(spec: str) -> tuple[str, Path, str]:
    """(format, path, metric) of `FORMAT:PATH[;metric=NAME]` (settings.split_data_spec)."""
    fmt, path, metric = split_data_spec(spec)
    return fmt, Path(path), metric


def canonical_spec(spec: str, *, base: Path | None = None, metric: str | None = None) -> str:
    """The spec with an absolute path (a build resumed or reported from elsewhere finds
    the file) and the metric written out when it is not the default."""
    fmt, path, named = parse_spec(spec)
    if not path.is_absolute():
        path = (base or Path.cwd()) / path
    chosen = metric or named
    resolve_metric(chosen)  # an unknown metric is refused before anything runs
    return data_spec(fmt, str(path.resolve()), chosen)


def _where(fmt: str, path: Path, number: int) -> str:
    """A line of a file read here; a row (from 1) of a dataset read through `datasets`."""
    return f"{path} row {number}" if fmt in DATASET_FORMATS else f"{path}:{number}"


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
            raise ConfigError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise ConfigError(f"{path}:{number}: a row must be a JSON object")
        rows.append((number, row))
    return rows


def _csv_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(text.splitlines())
    # line 1 is the header: data row k sits on line k + 1 (no multi-line cells counted)
    return [(number, {k: v for k, v in row.items() if k is not None and v not in (None, "")})
            for number, row in enumerate(reader, 2)]


def read_rows(fmt: str, path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line or row number, row) of every row; ConfigError for an unreadable file."""
    if fmt in DATASET_FORMATS:
        table = load_dataset_rows(fmt, path)
        missing = [c for c in _REQUIRED if c not in table.columns]
        if missing:
            raise ConfigError(f"{path}: no column {', '.join(map(repr, missing))} "
                              f"(columns: {', '.join(table.columns)})",
                              hint="a row needs id, question and answer")
        return table.rows
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


def _image(row: dict[str, Any], base: Path, where: str, data: dict[str, Any]) -> None:
    """The row's image into `data`: embedded bytes (a dataset's Image column) as they
    are, a path relative to `base` checked to exist."""
    value = row["image"]
    if isinstance(value, bytes):
        data["image_bytes"] = value
        return
    if not isinstance(value, str):
        raise ConfigError(f"{where}: 'image' must be a path (or a dataset's image)")
    image = base / value
    if not image.is_file():
        raise ConfigError(f"{where}: image {value!r} does not exist ({image})")
    data["image"] = str(image)


def _item(fmt: str, path: Path, number: int, row: dict[str, Any]) -> Item:
    where = _where(fmt, path, number)
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
        # a saved dataset's paths are relative to its directory, a file's to the file's
        _image(row, path if path.is_dir() else path.parent, where, data)
    fields: dict[str, Any] = {}
    for key, value in row.items():
        if key in (*_REQUIRED, "image"):
            continue
        if isinstance(value, (dict, bool, bytes)) or value is None:
            raise ConfigError(f"{where}: field {key!r} must be text, a number or a list")
        fields[key] = value
    data["fields"] = fields
    return Item(item_id, question, data)


class DataSetting:
    """The rows of one file as a setting (see the module docstring)."""

    def __init__(self, spec: str) -> None:
        fmt, path_text, metric_name = split_data_spec(spec)
        path = Path(path_text)
        #: the spec as written, in its one spelling (an old `?metric=` spec is named as it
        #: is written now; stored harnesses naming it the old way still match it:
        #: setting.same_setting)
        self.name = data_spec(fmt, path_text, metric_name)
        self.path = path
        self.metric: Metric = resolve_metric(metric_name)
        #: graded metrics (anls, f1, a function's float) aggregate as a mean score
        self.aggregation = self.metric.aggregation
        items: list[Item] = []
        seen: dict[str, int] = {}
        unit = "row" if fmt in DATASET_FORMATS else "line"
        for number, row in read_rows(fmt, path):
            item = _item(fmt, path, number, row)
            if item.item_id in seen:
                raise ConfigError(f"{_where(fmt, path, number)}: duplicate id "
                                  f"{item.item_id!r} (first on {unit} {seen[item.item_id]})")
            seen[item.item_id] = number
            items.append(item)
        self.items = items
        self.offered_resources: tuple[str, ...] = tuple(sorted(
            {k for item in items for k in item.data["fields"]}))

    @property
    def description(self) -> str:
        """What the teacher reads about the task (compiler/prompts.py: setting_text)."""
        fields = ", ".join(self.offered_resources) or "none"
        images = " and sometimes an image" if any(map(self._has_image, self.items)) else ""
        return (f"Questions from the user's data {self.path.name} "
                f"({len(self.items)} rows), "
                f"scored by the {self.metric.name} metric. Each item has a question"
                f"{images}"
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

    @staticmethod
    def _has_image(item: Item) -> bool:
        return "image" in item.data or "image_bytes" in item.data

    def image(self, item: Item) -> bytes | None:
        if "image_bytes" in item.data:
            return bytes(item.data["image_bytes"])
        where = item.data.get("image")
        return Path(where).read_bytes() if where else None

    def score(self, answer: str, item: Item) -> float:
        return self.metric.score(answer, item.data["answers"], item)

    def gold(self, item: Item) -> list[str]:
        return list(item.data["answers"])

    def inventory(self) -> list[str]:
        return []

    def public_vocabulary(self) -> list[str]:
        """The options every row lists (a fixed label set: `yes`/`no`/`maybe`). The union
        of all rows' options would be the file's answer inventory, held-out gold of
        other rows included, so an option only some rows list is not exempt from the
        hard-coded-answer audit (a harness reads it from the row's `choices` field)."""
        lists = [{str(c) for c in choices} for item in self.items
                 if isinstance(choices := item.data["fields"].get("choices"), list)]
        return sorted(set.intersection(*lists)) if lists else []
