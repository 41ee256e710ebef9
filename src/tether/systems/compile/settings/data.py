"""A setting read from the user's own data: `jsonl:PATH`, `csv:PATH`, `hf:PATH`,
`parquet:PATH`.

    tether compile --setting jsonl:cities.jsonl --metric exact ...

A row is one item:

    {"id": "c1", "question": "Which city is the capital of Wakanda?",
     "answer": ["Birnin Zana", "Golden City"],        # a string or a list of accepted ones
     "image": "img/c1.png",                            # optional, relative to the file
     "context": "Birnin Zana is the capital ..."}      # any other text field

`id`, `question` and `answer` are required (`answer` in a CSV file is one string; a
cell holding a JSON list is read as the list). Files are read exactly: a CSV file by the
csv module's own record reading (a quoted cell keeps its newlines; a row with more or
fewer cells than the header is refused, naming its line), JSON Lines split on `\n`
only, either one with or without a byte-order mark. A deployment (`tether harness
apply`) reads a file with `labels="optional"`: a row without `answer` (or with a null one) is
unlabelled, answered but never scored (`labelled`), and only the fields named in
`keep` are read of the others (a field the harness does not use may hold anything).

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
`f1`, `numeric`, `choice`, `choice_named` or `module:function` (data_metrics.py); the aggregation
follows from it. A bad file is a ConfigError naming the line.

Files a row names (its `image`) are read only from inside the dataset's own folder (the
file's directory, or a saved dataset's directory), links resolved: an absolute path or
`../x` elsewhere is refused naming the row. A row may reach further only into a root
the user names on the spec, `jsonl:PATH;root=DIR` (with a metric:
`jsonl:PATH;metric=f1;root=DIR`).
"""

from __future__ import annotations

import copy
import csv
import io
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tether.errors import ConfigError
from tether.suites import FORMATS as DATASET_FORMATS, load_dataset_rows
from tether.systems.compile.setting import SPLITS, Item
from tether.systems.compile.settings import DATA_FORMATS, data_spec, parse_data_spec
from tether.systems.compile.settings.base import check_resources
from tether.systems.compile.settings.data_metrics import Metric, MetricError, resolve_metric
from tether.textio import JSONError, jsonl_lines, loads, read_bytes, resolved

__all__ = ["FORMATS", "MAX_FIELDS", "MAX_IMAGE_BYTES", "DataSetting", "DataSpec",
           "canonical_spec", "parse_spec", "read_rows"]

FORMATS = DATA_FORMATS
_REQUIRED = ("id", "question", "answer")
#: the most resource fields a data file may offer: every one is named to the teacher
MAX_FIELDS = 256
#: the largest image file a row may name (a remote student gets it base64-encoded)
MAX_IMAGE_BYTES = 32 * 2**20
#: what a row needs when labels are optional (a deployment's data)
_UNLABELLED = ("id", "question")
Labels = Literal["required", "optional"]


@dataclass(frozen=True)
class DataSpec:
    """`FORMAT:PATH[;metric=NAME][;root=DIR]` taken apart."""

    fmt: str
    path: Path
    metric: str = "exact"
    #: a folder outside the dataset's own that rows may name files in (None: none)
    root: Path | None = None


def parse_spec(spec: str) -> DataSpec:
    """The parts of `FORMAT:PATH[;metric=NAME][;root=DIR]` (settings.parse_data_spec)."""
    fmt, path, metric, root = parse_data_spec(spec)
    return DataSpec(fmt, Path(path), metric, None if root is None else Path(root))


def canonical_spec(spec: str, *, base: Path | None = None, metric: str | None = None) -> str:
    """The spec with absolute paths (a build resumed or reported from elsewhere finds
    the file) and the metric written out when it is not the default."""
    parsed = parse_spec(spec)

    def absolute(path: Path) -> Path:
        return resolved(path if path.is_absolute() else (base or Path.cwd()) / path)

    chosen = metric or parsed.metric
    resolve_metric(chosen)  # an unknown metric is refused before anything runs
    root = None if parsed.root is None else str(absolute(parsed.root))
    return data_spec(parsed.fmt, str(absolute(parsed.path)), chosen, root)


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
    if any(isinstance(v, float) and not math.isfinite(v) for v in value):
        # a dataset's missing number reads as NaN: no answer, not the gold text "nan"
        raise ConfigError(f"{where}: 'answer' is not a finite number ({value!r})",
                          hint="leave the row out, or write the answer as text")
    answers = [str(v) for v in value]
    if not all(a.strip() for a in answers):
        raise ConfigError(f"{where}: 'answer' has an empty accepted answer")
    return answers


def _jsonl_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for number, line in jsonl_lines(text):  # split on \n only: U+2028 may sit in a string
        try:
            row = loads(line)
        except JSONError as exc:
            raise ConfigError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise ConfigError(f"{path}:{number}: a row must be a JSON object")
        rows.append((number, row))
    return rows


def _csv_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    """(first line, row) of every record, read by the csv module itself: a quoted cell
    keeps its newlines, so a record may span lines and is named by the line it starts
    on. A record with more or fewer cells than the header is refused (csv.DictReader
    would drop the extra cells or fill the missing ones without a word)."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    rows: list[tuple[int, dict[str, Any]]] = []
    while True:
        start = reader.line_num + 1
        try:
            record = next(reader)
        except StopIteration:
            return rows
        except csv.Error as exc:
            raise ConfigError(f"{path}:{start}: not CSV ({exc})") from None
        if not record:  # a blank line between records
            continue
        if header is None:
            header = record
            doubled = sorted({c for c in header if header.count(c) > 1})
            if doubled:
                raise ConfigError(f"{path}:{start}: column(s) named twice: {doubled}")
            continue
        if len(record) != len(header):
            raise ConfigError(f"{path}:{start}: {len(record)} cells, the header has "
                              f"{len(header)}", hint="quote a cell that holds a comma")
        rows.append((start, {k: v for k, v in zip(header, record, strict=True) if v != ""}))


def _needs(labels: Labels) -> tuple[str, ...]:
    return _REQUIRED if labels == "required" else _UNLABELLED


def _needs_hint(labels: Labels) -> str:
    return "a row needs id, question and answer" if labels == "required" else \
        "a row needs id and question (answer where it is labelled)"


def read_rows(fmt: str, path: Path, labels: Labels = "required"
              ) -> list[tuple[int, dict[str, Any]]]:
    """(line or row number, row) of every row; ConfigError for an unreadable file."""
    if fmt in DATASET_FORMATS:
        table = load_dataset_rows(fmt, path)
        missing = [c for c in _needs(labels) if c not in table.columns]
        if missing:
            raise ConfigError(f"{path}: no column {', '.join(map(repr, missing))} "
                              f"(columns: {', '.join(table.columns)})",
                              hint=_needs_hint(labels))
        return table.rows
    if not path.exists():
        raise ConfigError(f"no such data file: {path}")
    # bytes decoded here, not read_text: its newline translation would turn a CSV cell's
    # \r\n into \n; utf-8-sig: the byte-order mark a spreadsheet writes is no text.
    # read_bytes: a regular file, bounded (a FIFO or /dev/zero is one line)
    raw = read_bytes(path, what="data file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"data file {path}: not UTF-8 text ({exc.reason} at byte "
                          f"{exc.start})") from None
    rows = _jsonl_rows(path, text) if fmt == "jsonl" else _csv_rows(path, text)
    if not rows:
        raise ConfigError(f"{path}: no rows")
    return rows


def _image(row: dict[str, Any], base: Path, root: Path | None, where: str,
           data: dict[str, Any]) -> None:
    """The row's image into `data`: embedded bytes (a dataset's Image column) as they
    are, a path relative to `base` checked to exist and to resolve inside `base` (or
    inside the user's named `root`)."""
    value = row["image"]
    if isinstance(value, bytes):
        data["image_bytes"] = value
        return
    if not isinstance(value, str):
        raise ConfigError(f"{where}: 'image' must be a path (or a dataset's image)")
    try:
        image = resolved(base / value)
    except ConfigError:
        raise ConfigError(f"{where}: image {value!r}: its links loop") from None
    inside = [d for d in (base, root) if d is not None and image.is_relative_to(resolved(d))]
    if not inside:
        raise ConfigError(f"{where}: image {value!r} is outside the dataset's folder {base}",
                          hint="keep images beside the data, or name their folder on the "
                               "spec: FORMAT:PATH;root=DIR")
    if not image.is_file():
        raise ConfigError(f"{where}: image {value!r} does not exist or is not a regular "
                          f"file ({image})")
    if image.stat().st_size > MAX_IMAGE_BYTES:
        raise ConfigError(f"{where}: image {value!r} is larger than {MAX_IMAGE_BYTES:,} bytes")
    data["image"] = str(image)


def _item(fmt: str, path: Path, number: int, row: dict[str, Any],
          root: Path | None = None, labels: Labels = "required",
          keep: frozenset[str] | None = None) -> Item:
    where = _where(fmt, path, number)
    if labels == "optional" and row.get("answer") is None:
        row = {k: v for k, v in row.items() if k != "answer"}  # unlabelled
    missing = [k for k in _needs(labels) if k not in row]
    if missing:
        raise ConfigError(f"{where}: missing {', '.join(map(repr, missing))}",
                          hint=_needs_hint(labels))
    item_id, question = str(row["id"]).strip(), row["question"]
    if not item_id:
        raise ConfigError(f"{where}: empty 'id'")
    if not isinstance(question, str) or not question.strip():
        raise ConfigError(f"{where}: 'question' must be a non-empty string")
    answers = _answers(row["answer"], where) if "answer" in row else []
    data: dict[str, Any] = {"answers": answers, "line": number}
    if row.get("image") is not None:
        # a saved dataset's paths are relative to its directory, a file's to the file's
        _image(row, path if path.is_dir() else path.parent, root, where, data)
    fields: dict[str, Any] = {}
    for key, value in row.items():
        if key in (*_REQUIRED, "image") or (keep is not None and key not in keep):
            continue
        if isinstance(value, (dict, bool, bytes)) or value is None:
            raise ConfigError(f"{where}: field {key!r} must be text, a number or a list")
        fields[key] = value
    data["fields"] = fields
    return Item(item_id, question, data)


class DataSetting:
    """The rows of one file as a setting (see the module docstring)."""

    def __init__(self, spec: str, *, labels: Labels = "required",
                 keep: frozenset[str] | None = None) -> None:
        fmt, path_text, metric_name, root = parse_data_spec(spec)
        path = Path(path_text)
        parsed = DataSpec(fmt, path, metric_name, None if root is None else Path(root))
        #: the spec as written, in its one spelling (an old `?metric=` spec is named as it
        #: is written now; stored harnesses naming it the old way still match it:
        #: setting.same_setting)
        self.name = data_spec(fmt, path_text, metric_name, root)
        self.path = path
        self._format = fmt
        self.metric: Metric = resolve_metric(parsed.metric)
        #: graded metrics (anls, f1, a function's float) aggregate as a mean score
        self.aggregation = self.metric.aggregation
        items: list[Item] = []
        seen: dict[str, int] = {}
        unit = "row" if fmt in DATASET_FORMATS else "line"
        for number, row in read_rows(fmt, path, labels):
            item = _item(fmt, path, number, row, parsed.root, labels, keep)
            if item.item_id in seen:
                raise ConfigError(f"{_where(fmt, path, number)}: duplicate id "
                                  f"{item.item_id!r} (first on {unit} {seen[item.item_id]})")
            seen[item.item_id] = number
            items.append(item)
        self.items = items
        self.offered_resources: tuple[str, ...] = tuple(sorted(
            {k for item in items for k in item.data["fields"]}))
        if self.metric.user:
            self._check_metric(fmt, path)
        if len(self.offered_resources) > MAX_FIELDS:
            # each is named to the teacher on every proposal: 10,000 columns would cost
            # hundreds of thousands of teacher tokens before a word was said
            raise ConfigError(f"{path}: {len(self.offered_resources)} fields besides id, "
                              f"question, answer and image; at most {MAX_FIELDS}",
                              hint="drop the columns the task does not need")

    def _check_metric(self, fmt: str, path: Path) -> None:
        """A user's metric scores each item's gold against its golds before any model is
        called: one that raises, hangs or answers out of range stops here, naming the
        row, instead of erring on every answer of the compile."""
        for item in self.items:
            if not item.data["answers"]:  # an unlabelled row (a deployment's): no gold
                continue
            try:
                self.metric.score(item.data["answers"][0], item.data["answers"], item)
            except MetricError as exc:
                raise ConfigError(f"{_where(fmt, path, item.data['line'])}: the metric fails "
                                  f"on the row's own gold: {exc}",
                                  hint="a metric is checked gold against gold on every "
                                       "row before the compile starts") from None

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
        return read_bytes(where, what="image", limit=MAX_IMAGE_BYTES) if where else None

    def where(self, item: Item) -> str:
        """Where the item's row is: `PATH:LINE` of a file, `PATH row N` of a dataset."""
        return _where(self._format, self.path, int(item.data["line"]))

    def labelled(self, item: Item) -> bool:
        """Whether the row has an answer to score against (see the module docstring)."""
        return bool(item.data["answers"])

    def score(self, answer: str, item: Item) -> float:
        if not self.labelled(item):  # never read as a fail: the caller asks `labelled`
            raise ConfigError(f"{self.path}: row {item.item_id!r} has no answer to score")
        return self.metric.score(answer, item.data["answers"], item)

    def restricted(self, items: list[Item]) -> DataSetting:
        """The same setting over `items` only (a deployment's labelled rows, which its
        admissibility checks that need gold run on)."""
        view = copy.copy(self)
        view.items = list(items)
        return view

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
