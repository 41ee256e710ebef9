"""Rows of a local dataset read through the `datasets` library (the optional extra
`datasets`, which brings pyarrow).

Two spec prefixes name such a dataset, for harness data settings (`tether compile
--setting hf:PATH`) and code suites (`--suite hf:PATH`) alike:

- `hf:PATH`: a directory written by `Dataset.save_to_disk` (a `DatasetDict` directory
  with one split is read as that split; with several, name one: `hf:PATH/train`), or a
  local data file the library reads (`.parquet`, `.jsonl`, `.json`, `.csv`, `.arrow`);
- `parquet:PATH`: a local parquet file.

Nothing is downloaded and nothing is cached outside a temporary directory. A value the
dataset holds as null (a field a JSON row left out, an empty cell) is left out of the
row, as an empty CSV cell is. An `image` column of the library's `Image` type is read
undecoded: the row's `image` is then the embedded bytes (or the stored path).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.errors import ConfigError

__all__ = ["FORMATS", "INSTALL", "DatasetRows", "load_dataset_rows"]

#: the spec prefixes read through `datasets`
FORMATS = ("hf", "parquet")
#: the one-line fix when the library is missing
INSTALL = "pip install 'tether[datasets]'"
#: file suffix -> the `datasets` builder that reads it
_BUILDERS = {".parquet": "parquet", ".jsonl": "json", ".json": "json", ".csv": "csv",
             ".arrow": "arrow"}


@dataclass(frozen=True)
class DatasetRows:
    """The rows of one dataset, numbered from 1, and its column names."""

    rows: list[tuple[int, dict[str, Any]]]
    columns: tuple[str, ...]


def _library(spec: str) -> Any:
    try:
        import datasets  # the optional extra: imported only when a spec names it
    except ImportError:
        raise ConfigError(f"{spec} is read through the 'datasets' library, which is not "
                          f"installed: {INSTALL}") from None
    return datasets


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _from_disk(datasets: Any, path: Path, fmt: str) -> Any:
    try:
        loaded = datasets.load_from_disk(str(path), keep_in_memory=True)
    except FileNotFoundError:
        raise ConfigError(f"{path} is not a directory written by save_to_disk",
                          hint=f"{fmt}:PATH takes a saved dataset directory or a "
                               f"{', '.join(_BUILDERS)} file") from None
    if isinstance(loaded, datasets.DatasetDict):
        names = sorted(loaded)
        if len(names) != 1:
            raise ConfigError(f"{path} holds the splits {', '.join(names)}: name one",
                              hint=f"e.g. {fmt}:{path / names[0]}")
        loaded = loaded[names[0]]
    return loaded


def _from_file(datasets: Any, path: Path, fmt: str, tmp: str) -> Any:
    if path.is_dir():
        raise ConfigError(f"{fmt}:{path} is a directory", hint=f"{fmt}:PATH takes a file")
    builder = "parquet" if fmt == "parquet" else _BUILDERS.get(path.suffix.lower())
    if builder is None:
        raise ConfigError(f"{fmt}:{path}: not a file type the datasets library reads here",
                          hint=f"a saved dataset directory or a {', '.join(_BUILDERS)} file")
    # keep_in_memory + a temporary cache: the user's ~/.cache is left alone
    return datasets.load_dataset(builder, data_files=str(path), split="train",
                                 cache_dir=tmp, keep_in_memory=True)


def _undecoded_images(datasets: Any, table: Any) -> Any:
    feature = table.features.get("image")
    if isinstance(feature, datasets.Image):
        return table.cast_column("image", datasets.Image(decode=False))
    return table


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in row.items() if v is not None}
    image = out.get("image")
    if isinstance(image, dict) and {"bytes", "path"} >= set(image):
        # an undecoded Image value: its bytes when embedded, else the stored path
        out["image"] = image.get("bytes") or image.get("path")
        if out["image"] is None:
            del out["image"]
    return out


def load_dataset_rows(fmt: str, path: Path) -> DatasetRows:
    """Every row of the dataset `fmt:path` (`fmt` in FORMATS); ConfigError for a missing
    library, a missing path or a dataset the library cannot read."""
    datasets = _library(f"{fmt}:{path}")
    if not path.exists():
        raise ConfigError(f"no such dataset: {path}")
    quiet = datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()  # no progress bars in the command's output
    try:
        with tempfile.TemporaryDirectory(prefix="tether-datasets-") as tmp:
            table = _from_disk(datasets, path, fmt) if fmt == "hf" and path.is_dir() \
                else _from_file(datasets, path, fmt, tmp)
            table = _undecoded_images(datasets, table)
            rows = [(number, _plain(row)) for number, row in enumerate(table, 1)]
            columns = tuple(table.column_names)
    except ConfigError:
        raise
    except Exception as exc:  # the library's own errors (arrow, builder) name the cause
        raise ConfigError(f"cannot read {fmt}:{path} through datasets: "
                          f"{_first_line(exc)}") from None
    finally:
        if not quiet:
            datasets.enable_progress_bars()
    if not rows:
        raise ConfigError(f"{path}: no rows")
    return DatasetRows(rows, columns)
