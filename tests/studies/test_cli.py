"""`tether reproduce`: the paper's tables from the study's recorded data, in the JSON shapes
the issue fixed, and one-line errors for what a user can get wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli.hub import main
from tether.studies.tables import TABLES

# The paper's Table 2 (pass rate %, population SD over 3 seeds; R ran once).
TABLE2 = {("R", 1000): (60.0, None), ("R", 5000): (73.3, None), ("R", 20000): (73.3, None),
          ("S", 1000): (80.0, 0.0), ("S", 5000): (77.8, 3.1), ("S", 20000): (86.7, 0.0),
          ("L", 1000): (57.8, 3.1), ("L", 5000): (93.3, 0.0), ("L", 20000): (97.8, 3.1),
          ("H", 1000): (62.2, 3.1), ("H", 5000): (91.1, 3.1), ("H", 20000): (100.0, 0.0)}
# The paper's Table 6: n, ss, rev, delta %, CI, improved, regressed, p.
TABLE6 = {"figures": (60, 0.57, 0.15, -74, (52, 89), 17, 2, 7e-4),
          "slides": (36, 1.25, 0.33, -73, (45, 93), 13, 1, 1.8e-3),
          "web": (60, 16.1, 8.5, -47, (30, 62), 33, 2, 4e-8),
          "animations": (60, 16.9, 10.2, -40, (10, 64), 34, 7, 3e-5)}


def reproduce(*args: str):
    return CliRunner().invoke(main, ["reproduce", *args])


def as_json(table: str, data: Path) -> dict:
    result = reproduce(table, "--data", str(data), "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_table2_prints_the_papers_values(interaction_scaling_dir):
    out = as_json("is-table2", interaction_scaling_dir)
    got = {(r["arm"], r["budget"]): (r["pass_rate"], r["sd"]) for r in out["rows"]}
    assert got == TABLE2
    assert "population SD" in out["convention"]
    assert {r["arm"]: r["seeds"] for r in out["rows"]} == {"R": 1, "S": 3, "L": 3, "H": 3}


def test_table6_prints_the_papers_values(interaction_scaling_dir):
    out = as_json("is-table6", interaction_scaling_dir)
    for row in out["rows"]:
        n, ss, rev, delta, ci, improved, regressed, p = TABLE6[row["modality"]]
        assert (row["n"], row["delta_pct"], row["improved"], row["regressed"]) == (
            n, delta, improved, regressed)
        digits = 2 if ss < 1.5 else 1
        assert (round(row["ss"], digits), round(row["rev"], digits)) == (ss, rev)
        # the paper's interval within 2 points at each end (Monte Carlo and rounding)
        assert abs(row["ci"][0] - ci[0]) <= 2 and abs(row["ci"][1] - ci[1]) <= 2, row
        assert f"{row['p']:.0e}" == f"{p:.0e}"
    assert "(task, seed) pairs" in out["convention"]


def test_the_other_recorded_tables(interaction_scaling_dir):
    t4 = {r["channel"]: r for r in as_json("is-table4", interaction_scaling_dir)["rows"]}
    assert [(t4[c]["ss"], t4[c]["reviewed"]) for c in t4] == [
        (11, None), (10, 13), (11, 13), (11, 14)]
    assert t4["critique"]["iterations"] == t4["critique+linter"]["iterations"] == 2.07
    t5 = {r["strategy"]: r for r in as_json("is-table5", interaction_scaling_dir)["rows"]}
    assert {k: (v["pass_rate"], v["sd"], v["mean_tokens"]) for k, v in t5.items()} == {
        "L": (97.8, 3.1, 1431), "IAD": (100.0, None, 1416), "H": (100.0, 0.0, 1029)}
    t7 = as_json("is-table7", interaction_scaling_dir)
    assert [(r["single_shot"], r["single_shot_sd"], r["reviewed"], r["reviewed_sd"],
             r["lift"]) for r in t7["rows"]] == [(71.1, 3.8, 93.3, 0.0, 22.2),
                                                 (80.0, 6.7, 100.0, 0.0, 20.0)]
    assert t7["not_recorded"]  # the Claude row is the paper's, not in the files
    (t8,) = as_json("is-table8", interaction_scaling_dir)["rows"]
    assert (t8["single_shot"], t8["reviewed"], t8["delta"], t8["fixes"], t8["ss_failures"],
            t8["regressions"]) == (90.6, 100.0, 9.4, 3, 3, 0)


def test_list_names_every_table_and_what_it_needs(tmp_path):
    result = reproduce("list", "--json", "--data", str(tmp_path))
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["id"] for r in rows] == [t.id for t in TABLES]
    assert {"is-table2", "is-table6"} <= {r["id"] for r in rows}
    assert all(r["needs"] and r["available"] is False for r in rows)
    text = reproduce("list")
    assert text.exit_code == 0 and "is-table6" in text.output


@pytest.mark.parametrize("args, message", [
    (("is-tabel2", "--data", "."), "no reproducible table 'is-tabel2'"),
    (("is-table2",), "is-table2 needs --data DIR"),
    (("is-table2", "--data", "/nonexistent-dir"), "is not a directory"),
])
def test_user_errors_are_one_line(args, message):
    result = reproduce(*args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_a_folder_without_the_recorded_files_names_what_is_missing(tmp_path):
    result = reproduce("is-table6", "--data", str(tmp_path))
    assert result.exit_code == 2
    assert "is-table6 needs recorded/visual/figures" in result.output


def test_a_malformed_recorded_file_is_a_config_error(tmp_path):
    path = tmp_path / "recorded" / "code" / "code_4strategy_seeds.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"x": 1}')
    result = reproduce("is-table2", "--data", str(tmp_path))
    assert result.exit_code == 2 and "code_4strategy_seeds.json" in result.output
