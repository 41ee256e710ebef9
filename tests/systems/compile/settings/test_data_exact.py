"""A user's data file read exactly: the csv module's own records (multi-line quoted
cells kept, ragged rows refused by line), a byte-order mark dropped, JSON Lines split on
`\\n` only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.errors import ConfigError
from tether.systems.compile.settings.data import DataSetting

BOM = b"\xef\xbb\xbf"


def test_a_quoted_csv_cell_keeps_its_newlines_and_the_row_its_first_line(
        tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_bytes(b'id,question,answer,context\r\n'
                     b'q1,"What is\nthe capital?",Oslo,"one\r\ntwo"\r\n'
                     b'q2,Sum,4,\r\n')
    setting = DataSetting(f"csv:{path}")
    first, second = setting.items
    assert first.question == "What is\nthe capital?"
    assert first.data["fields"] == {"context": "one\r\ntwo"}
    # q1 starts on line 2 and spans three lines; q2 starts on line 5
    assert (first.data["line"], second.data["line"]) == (2, 5)
    assert second.data["fields"] == {}  # an empty cell is a field left out


@pytest.mark.parametrize("row, cells", [(b"q1,a,b,extra", 4), (b"q1,a", 2)])
def test_a_ragged_csv_row_is_refused_naming_its_line(tmp_path: Path, row: bytes,
                                                     cells: int) -> None:
    path = tmp_path / "d.csv"
    path.write_bytes(b"id,question,answer\nq0,x,y\n\n" + row + b"\n")
    with pytest.raises(ConfigError, match=rf"d\.csv:4: {cells} cells, the header has 3"):
        DataSetting(f"csv:{path}")


def test_broken_quoting_and_doubled_columns_are_refused_by_line(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_bytes(b'id,question,answer\nq0,x,y\nq1,"open,b\n')
    with pytest.raises(ConfigError, match=r"d\.csv:3: not CSV"):
        DataSetting(f"csv:{path}")
    path.write_bytes(b"id,question,answer,answer\nq0,x,y,z\n")
    with pytest.raises(ConfigError, match=r"d\.csv:1: column\(s\) named twice: \['answer'\]"):
        DataSetting(f"csv:{path}")


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_file_with_a_byte_order_mark_loads(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"d.{fmt}"
    body = (b"id,question,answer\nq1,Which?,Oslo\n" if fmt == "csv" else
            json.dumps({"id": "q1", "question": "Which?", "answer": "Oslo"}).encode() + b"\n")
    path.write_bytes(BOM + body)
    (item,) = DataSetting(f"{fmt}:{path}").items
    assert (item.item_id, item.question, item.data["answers"]) == ("q1", "Which?", ["Oslo"])


def test_jsonl_keeps_a_raw_line_separator_inside_a_string(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    rows = [{"id": "a", "question": "x\u2028y\x85z", "answer": "w"},
            {"id": "b", "question": "q", "answer": "v"}]
    # ensure_ascii=False: the separators are written raw, as many tools write them
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in rows),
                    encoding="utf-8")
    first, second = DataSetting(f"jsonl:{path}").items
    assert first.question == "x\u2028y\x85z"
    assert (first.data["line"], second.data["line"]) == (1, 2)
