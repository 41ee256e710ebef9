"""Files a data row names stay inside the dataset's folder (or a root the user names),
and hostile or careless data files are one line naming the place, never a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tether.errors import ConfigError
from tether.systems.compile.settings.data import (
    MAX_FIELDS,
    DataSetting,
    canonical_spec,
    parse_spec,
)

SECRET = b"host-secret-bytes"


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def row(image: str, k: int = 0) -> dict:
    return {"id": f"r{k}", "question": "What colour?", "answer": "red", "image": image}


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_bytes(SECRET)
    return path


@pytest.mark.parametrize("name", ["abs", "../secret.txt", "img/../../secret.txt", "link.png"])
def test_a_row_naming_a_file_outside_the_dataset_is_refused_naming_its_line(
        tmp_path: Path, secret: Path, name: str) -> None:
    data = tmp_path / "data"
    (data / "link.png").parent.mkdir(parents=True)
    (data / "link.png").symlink_to(secret)  # a link inside that leads out
    value = str(secret) if name == "abs" else name
    path = write_rows(data / "d.jsonl", [row("ok.png", 0), row(value, 1)])
    (data / "ok.png").write_bytes(b"\x89PNG fake")
    with pytest.raises(ConfigError) as info:
        DataSetting(f"jsonl:{path}")
    text = str(info.value)
    assert f"d.jsonl:2: image {value!r} is outside the dataset's folder" in text
    assert "\n" not in text and "root=DIR" in (info.value.hint or "")


def test_a_root_named_on_the_spec_lets_rows_reach_into_it(tmp_path: Path) -> None:
    shared = tmp_path / "shared-images"
    shared.mkdir()
    (shared / "a.png").write_bytes(b"\x89PNG shared")
    path = write_rows(tmp_path / "data" / "d.jsonl", [row(str(shared / "a.png"))])
    setting = DataSetting(f"jsonl:{path};root={shared}")
    assert setting.image(setting.items[0]) == b"\x89PNG shared"
    spec = f"jsonl:{path};metric=f1;root={shared}"
    assert parse_spec(spec).root == shared and parse_spec(spec).metric == "f1"
    assert canonical_spec(spec) == f"jsonl:{path.resolve()};metric=f1;root={shared.resolve()}"
    # the root reaches into that folder only
    other = write_rows(tmp_path / "data" / "e.jsonl", [row(str(tmp_path / "x.png"))])
    with pytest.raises(ConfigError, match="outside the dataset's folder"):
        DataSetting(f"jsonl:{other};root={shared}")


def test_a_fifo_or_a_device_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "rows.jsonl"
    os.mkfifo(fifo)
    for target in (fifo, Path("/dev/zero")):
        with pytest.raises(ConfigError, match="not a regular file"):
            DataSetting(f"jsonl:{target}")
    image_fifo = tmp_path / "img.png"
    os.mkfifo(image_fifo)
    path = write_rows(tmp_path / "d.jsonl", [row("img.png")])
    with pytest.raises(ConfigError, match="d.jsonl:1: image 'img.png' does not exist or is "
                                          "not a regular file"):
        DataSetting(f"jsonl:{path}")


def test_a_csv_cell_over_the_field_limit_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("id,question,answer\na,q,x\nb,q," + "y" * 200_000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        DataSetting(f"csv:{path}")
    assert "d.csv:3: not CSV (field larger than field limit" in str(info.value)
    assert "\n" not in str(info.value)


def test_a_nan_answer_is_refused_not_gold_nan(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "a", "question": "q", "answer": NaN}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"d.jsonl:1: 'answer' is not a finite number"):
        DataSetting(f"jsonl:{path}")


def test_too_many_fields_are_refused_before_the_teacher_reads_them(tmp_path: Path) -> None:
    wide = {"id": "a", "question": "q", "answer": "x",
            **{f"c{k}": "v" for k in range(MAX_FIELDS + 1)}}
    path = write_rows(tmp_path / "d.jsonl", [wide])
    with pytest.raises(ConfigError, match=f"{MAX_FIELDS + 1} fields .* at most {MAX_FIELDS}"):
        DataSetting(f"jsonl:{path}")


def test_a_parquet_row_naming_a_host_file_is_refused(tmp_path: Path, secret: Path) -> None:
    datasets = pytest.importorskip("datasets")
    datasets.disable_progress_bars()
    path = tmp_path / "data" / "d.parquet"
    path.parent.mkdir()
    records = [{**row(str(secret), 0), "answer": ["red"]},
               {**row("../secret.txt", 1), "answer": ["red"]}]
    datasets.Dataset.from_list(records).to_parquet(str(path))
    with pytest.raises(ConfigError, match=r"d.parquet row 1: image '.*secret.txt' is outside"):
        DataSetting(f"parquet:{path}")
    nan = tmp_path / "nan.parquet"
    datasets.Dataset.from_list([{"id": "a", "question": "q", "answer": float("nan")}]
                               ).to_parquet(str(nan))
    with pytest.raises(ConfigError, match=r"nan.parquet row 1: 'answer' is not a finite"):
        DataSetting(f"parquet:{nan}")


@pytest.mark.parametrize("spec", ["hf:{loop}", "parquet:{loop}", "jsonl:{loop}",
                                  "hf:{loop}/inner.parquet"])
def test_a_symlink_loop_is_one_line(tmp_path: Path, spec: str) -> None:
    from click.testing import CliRunner

    from tether.cli.hub import main

    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    res = CliRunner().invoke(main, ["compile", "--setting", spec.format(loop=loop),
                                    "--teacher", "scripted:[]", "--student", "scripted:[]",
                                    "--out", str(tmp_path / "b")])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and "its links loop" in res.output


def test_an_image_link_loop_names_the_row(tmp_path: Path) -> None:
    (tmp_path / "a.png").symlink_to(tmp_path / "b.png")
    (tmp_path / "b.png").symlink_to(tmp_path / "a.png")
    path = write_rows(tmp_path / "d.jsonl", [row("a.png")])
    with pytest.raises(ConfigError, match=r"d.jsonl:1: image 'a.png': its links loop"):
        DataSetting(f"jsonl:{path}")
