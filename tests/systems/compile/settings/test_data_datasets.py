"""The data setting through the `datasets` library: `hf:PATH` (a save_to_disk directory
or a local file) and `parquet:PATH`, with the row mapping and errors of `jsonl:PATH`."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.errors import ConfigError
from tether.systems.compile.setting import get_setting
from tether.systems.compile.settings.data import DataSetting, canonical_spec

datasets = pytest.importorskip("datasets")


def rows(n: int = 6) -> list[dict]:
    return [{"id": f"r{k}", "question": f"What is token {k}?", "answer": [f"Quux{k}"],
             "context": f"Quux{k} is it"} for k in range(n)]


def saved(tmp_path: Path, records: list[dict], name: str = "saved") -> Path:
    datasets.disable_progress_bars()
    datasets.Dataset.from_list(records).save_to_disk(str(tmp_path / name))
    return tmp_path / name


def parquet(tmp_path: Path, records: list[dict]) -> Path:
    datasets.disable_progress_bars()
    datasets.Dataset.from_list(records).to_parquet(str(tmp_path / "d.parquet"))
    return tmp_path / "d.parquet"


def _items(setting: DataSetting) -> list[tuple]:
    return [(i.item_id, i.question, setting.gold(i), setting.observation(i, {"context": True}))
            for i in setting.items]


def test_every_route_maps_rows_as_jsonl_does(tmp_path: Path) -> None:
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows()), encoding="utf-8")
    reference = get_setting(f"jsonl:{jsonl}")
    routes = [f"hf:{saved(tmp_path, rows())}", f"parquet:{parquet(tmp_path, rows())}",
              f"hf:{tmp_path / 'd.parquet'}", f"hf:{jsonl}"]
    for spec in routes:
        setting = get_setting(spec)
        assert isinstance(setting, DataSetting), spec
        assert _items(setting) == _items(reference), spec
        assert setting.offered_resources == ("context",)
        assert setting.splits(3, {"probe": 2, "validation": 2, "test": 2}) == \
            reference.splits(3, {"probe": 2, "validation": 2, "test": 2})


def test_a_null_is_a_field_left_out_and_a_missing_answer_names_the_row(
        tmp_path: Path) -> None:
    records = rows(3)
    records[1]["context"] = None
    setting = get_setting(f"hf:{saved(tmp_path, records)}")
    assert setting.observation(setting.items[1], {"context": True}) == {
        "item_id": "r1", "question": "What is token 1?"}
    records[2]["answer"] = None
    with pytest.raises(ConfigError, match=r"other row 3: missing 'answer'"):
        get_setting(f"hf:{saved(tmp_path, records, 'other')}")


@pytest.mark.parametrize(("change", "message"), [
    (lambda rs: [{k: v for k, v in r.items() if k != "question"} for r in rs],
     r"d.parquet: no column 'question' \(columns: id, answer, context\)"),
    (lambda rs: [rs[0], {**rs[1], "id": "r0"}],
     r"d.parquet row 2: duplicate id 'r0' \(first on row 1\)"),
    (lambda rs: [{**rs[0], "image": "nope.png"}],
     r"d.parquet row 1: image 'nope.png' does not exist"),
])
def test_bad_datasets_name_the_row_or_column(tmp_path: Path, change, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        DataSetting(f"parquet:{parquet(tmp_path, change(rows(2)))}")


def test_a_dataset_dict_with_several_splits_asks_for_one(tmp_path: Path) -> None:
    datasets.disable_progress_bars()
    one = datasets.Dataset.from_list(rows(3))
    datasets.DatasetDict({"train": one, "test": one}).save_to_disk(str(tmp_path / "dd"))
    with pytest.raises(ConfigError, match=r"holds the splits test, train: name one"):
        get_setting(f"hf:{tmp_path / 'dd'}")
    assert len(get_setting(f"hf:{tmp_path / 'dd' / 'train'}")) == 3
    datasets.DatasetDict({"train": one}).save_to_disk(str(tmp_path / "single"))
    assert len(get_setting(f"hf:{tmp_path / 'single'}")) == 3


def test_images_embedded_or_by_path(tmp_path: Path) -> None:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(buf, format="PNG")
    png = buf.getvalue()
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "a.png").write_bytes(png)
    by_path = get_setting(f"parquet:{parquet(tmp_path, [{**rows(1)[0], 'image': 'img/a.png'}])}")
    assert by_path.image(by_path.items[0]) == png  # relative to the file's directory
    records = [{**rows(1)[0], "image": {"bytes": png, "path": None}}]
    features = datasets.Features({"id": datasets.Value("string"),
                                  "question": datasets.Value("string"),
                                  "answer": datasets.Sequence(datasets.Value("string")),
                                  "context": datasets.Value("string"),
                                  "image": datasets.Image()})
    datasets.Dataset.from_list(records, features=features).save_to_disk(str(tmp_path / "emb"))
    embedded = get_setting(f"hf:{tmp_path / 'emb'}")
    assert embedded.image(embedded.items[0]) == png
    assert "image" not in embedded.offered_resources
    assert "sometimes an image" in embedded.description


def test_paths_in_a_saved_dataset_are_relative_to_its_directory(tmp_path: Path) -> None:
    folder = saved(tmp_path, [{**rows(1)[0], "image": "a.png"}], "withimg")
    (folder / "a.png").write_bytes(b"\x89PNG fake")
    setting = get_setting(f"hf:{folder}")
    assert setting.image(setting.items[0]) == b"\x89PNG fake"


def test_the_canonical_spec_of_a_directory_is_absolute(tmp_path: Path, monkeypatch) -> None:
    saved(tmp_path, rows(2))
    monkeypatch.chdir(tmp_path)
    spec = canonical_spec("hf:saved", metric="f1")
    assert spec == f"hf:{tmp_path.resolve()}/saved;metric=f1"
    assert get_setting(spec).aggregation == "mean_score"


def test_unreadable_inputs_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such dataset"):
        get_setting(f"hf:{tmp_path / 'none'}")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="not a directory written by save_to_disk"):
        get_setting(f"hf:{tmp_path / 'empty'}")
    (tmp_path / "x.txt").write_text("hello")
    with pytest.raises(ConfigError, match="not a file type the datasets library reads"):
        get_setting(f"hf:{tmp_path / 'x.txt'}")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(ConfigError, match=r"cannot read parquet:.*bad.parquet through datasets"):
        get_setting(f"parquet:{tmp_path / 'bad.parquet'}")


def test_without_the_extra_the_command_names_it(tmp_path: Path, monkeypatch) -> None:
    path = parquet(tmp_path, rows(2))
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets -> ImportError
    result = CliRunner().invoke(main, ["harness", "run", "bare", "--setting",
                                       f"parquet:{path}", "--student", "scripted:echo"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "pip install 'tether[datasets]'" in lines[0], result.output
