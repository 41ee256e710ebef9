"""`tether settings list` / `show`: the compile settings as the teacher reads them."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tether.cli import main


def test_settings_list_names_each_setting_with_its_resources() -> None:
    result = CliRunner().invoke(main, ["settings", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert rows["toy"]["resources"] == {"hint": True, "signals": True}
    assert rows["toy"]["aggregation"] == "pass_rate"
    assert rows["toy"]["summary"].startswith("Test double")


def test_settings_show_prints_what_the_teacher_reads() -> None:
    result = CliRunner().invoke(main, ["settings", "show", "toy"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("## The setting: toy\n")
    assert 'Resources it offers (enable them under "resources"): {"hint": true, ' \
           '"signals": true}' in result.output
    assert "Metric: pass/fail per item." in result.output


def test_settings_show_of_an_unknown_name_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["settings", "show", "tyo"])
    assert result.exit_code == 2
    assert "unknown setting 'tyo'" in result.output and "Traceback" not in result.output


def test_settings_show_rows_prints_items_as_tether_reads_them(tmp_path) -> None:
    path = tmp_path / "d.csv"
    path.write_bytes(b'\xef\xbb\xbfid,question,answer,context\n'
                     b'q1,"two\nlines",Oslo,"a\r\nb"\nq2,Sum,4,\nq3,More,5,\n')
    result = CliRunner().invoke(main, ["settings", "show", f"csv:{path}", "--rows", "2",
                                       "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"items": [
        {"id": "q1", "question": "two\nlines", "gold": ["Oslo"], "fields": {"context": "a\r\nb"}},
        {"id": "q2", "question": "Sum", "gold": ["4"], "fields": {}}]}
    text = CliRunner().invoke(main, ["settings", "show", f"csv:{path}", "--rows", "1"])
    assert text.exit_code == 0, text.output
    assert text.output == 'q1\n  question: "two\\nlines"\n  gold: ["Oslo"]\n' \
                          '  context: "a\\r\\nb"\n'


def test_settings_show_rows_of_a_bad_file_or_a_bundled_setting_is_one_line(tmp_path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("id,question,answer\nq1,a,b,c\n", encoding="utf-8")
    ragged = CliRunner().invoke(main, ["settings", "show", f"csv:{path}", "--rows", "1"])
    assert ragged.exit_code == 2 and "d.csv:2: 4 cells, the header has 3" in ragged.output
    bundled = CliRunner().invoke(main, ["settings", "show", "toy", "--rows", "1"])
    assert bundled.exit_code == 2
    assert bundled.output.startswith("error: --rows shows the rows of a data file")


def test_settings_list_in_a_base_install_names_the_extras(monkeypatch) -> None:
    import sys

    for module in ("flagpy", "datasets"):  # as if the harness and datasets extras were not
        monkeypatch.setitem(sys.modules, module, None)
    result = CliRunner().invoke(main, ["settings", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert rows["flags"]["needs"].startswith("pip install 'tether[harness]'")
    assert "flagpy" in rows["flags"]["summary"] and rows["flags"]["resources"] is None
    assert rows["toy"]["needs"] is None
    table = CliRunner().invoke(main, ["settings", "list"])
    assert table.exit_code == 0, table.output
    hf = next(line for line in table.output.splitlines() if "hf:PATH" in line)
    assert "pip install 'tether[datasets]'" in hf
