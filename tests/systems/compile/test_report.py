"""The HC report of a build directory, and the shared interventions table."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.systems.compile.compiler.conftest import compile_toy
from tether.cli.hub import main
from tether.systems.compile.report import build_dirs, hc_numbers, intervention_rows, write_hc_report


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hc") / "build"
    compile_toy(out, {"0": "v1", "1": "v2"}, rounds=1, interventions=True)
    return out


def test_numbers_hold_rounds_arms_and_paired_stats(built: Path) -> None:
    hc = hc_numbers(built)
    assert hc["graded"] is False
    (build,) = hc["builds"]
    assert [r["decision"] for r in build["rounds"]] == ["accept", "accept"]
    arms = {a["arm"]: a for a in build["arms"]}
    assert arms["bare"]["vs_bare"] is None
    selected = arms["selected"]
    assert selected["vs_bare"]["test"] == "mcnemar" and selected["vs_bare"]["delta"] > 0
    assert 0 <= selected["vs_bare"]["p_value"] <= 1
    assert selected["low"] <= selected["mean"] <= selected["high"]
    assert build["teacher"]["calls"] == 3 and build["teacher"]["cost"] is None
    rows = {r["intervention"]: r for r in build["interventions"]}
    assert set(rows) == {"decide", "select", "generate", "integrate", "persist"}
    assert rows["select"]["na"] and rows["persist"]["na"] is None


def test_html_and_the_report_command(built: Path) -> None:
    path, _ = write_hc_report(built)
    html = path.read_text()
    assert "Build 0" in html and "Interventions on the selection" in html
    result = CliRunner().invoke(main, ["report", str(built)])
    assert result.exit_code == 0 and "report.html" in result.output
    assert build_dirs(built.parent) == [built]  # what a run directory's report shows


def test_calls_the_teacher_budget_refused_are_counted_apart(tmp_path: Path) -> None:
    compile_toy(tmp_path / "b", {"0": "v1", "1": "v2"}, rounds=1, teacher_token_budget=100)
    (build,) = hc_numbers(tmp_path / "b")["builds"]
    assert build["teacher"]["calls"] == 0 and build["teacher"]["errors"] == 0
    assert build["teacher"]["refusals"] >= 1
    path, _ = write_hc_report(tmp_path / "b")
    assert "not made (its token budget refused them)" in path.read_text()


def test_a_build_report_into_a_folder_not_made_yet(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "new" / "deeper" / "report.html"
    result = CliRunner().invoke(main, ["report", str(built), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_file() and "Build 0" in out.read_text()


def test_the_bare_floor_is_said(tmp_path: Path) -> None:
    compile_toy(tmp_path, {"0": "tied", "default": "tied"}, rounds=0)
    path, hc = write_hc_report(tmp_path)
    assert hc["builds"][0]["selected_is_bare"] is True
    assert "nothing beat it on validation" in path.read_text()


def test_intervention_rows_pair_against_the_reference() -> None:
    ref = {"a": 1.0, "b": 1.0, "c": 0.0, "d": 1.0}
    rows = intervention_rows(ref, {"persist": {"a": 0.0, "b": 0.0, "c": 0.0, "d": 1.0},
                                   "select": "select: no candidates"}, graded=False)
    persist, select = rows
    assert persist["delta"] == -50.0 and persist["test"] == "mcnemar"
    assert persist["low"] <= -50.0 <= persist["high"]
    assert select == {"intervention": "select", "na": "select: no candidates"}
    graded = intervention_rows(ref, {"x": {"a": 0.5, "b": 1.0, "c": 0.0, "d": 1.0}},
                               graded=True)[0]
    assert graded["test"] == "sign" and graded["delta"] == -12.5


def test_a_run_directory_pairs_intervention_trials_with_their_harness() -> None:
    from types import SimpleNamespace

    from tether.systems.compile.report import run_interventions

    def entry(item: str, value: float, intervention: str | None) -> SimpleNamespace:
        extra = {"harness_hash": "h" * 64, "harness_source": "f.json", "setting": "toy",
                 "item_id": item, "outcome": "answered", "student_modality": "text",
                 "intervention": intervention}
        return SimpleNamespace(record=SimpleNamespace(extra=extra), value=value,
                               key=(item, 0))

    entries = [entry(f"i{k}", 1.0, None) for k in range(4)]
    entries += [entry(f"i{k}", float(k % 2), "persist") for k in range(4)]
    entries += [entry("i9", 1.0, "decide")]  # no matched reference item: n = 0
    (block,) = run_interventions(entries)
    rows = {r["intervention"]: r for r in block["rows"]}
    assert rows["persist"]["n"] == 4 and rows["persist"]["delta"] == -50.0
    assert rows["decide"]["n"] == 0
    assert run_interventions(entries[:4]) == []  # no intervention trials: no table


def test_the_selected_harness_is_in_the_report(built: Path) -> None:
    from tether.testing.scripted_teacher import VARIANTS

    path, hc = write_hc_report(built)
    shown = hc["builds"][0]["harness"]
    v2 = VARIANTS["toy"]["v2"]
    assert shown["prompts"] == v2["prompts"] and shown["resources"] == v2["resources"]
    assert shown["decode"]["max_tokens"] == v2["decode"]["max_tokens"]
    assert set(shown["hooks"]) == {"route", "parse"}
    html = path.read_text()
    assert "The selected harness" in html and "hook <code>parse</code>" in html
    assert "Answer with one word." in html
    assert hc["across"] is None and "Across builds" not in html


def test_several_builds_get_the_cross_build_table(tmp_path: Path) -> None:
    compile_toy(tmp_path, {"0": "v1", "1": "v2"}, rounds=1, builds=2)
    path, hc = write_hc_report(tmp_path)
    across = hc["across"]
    assert [r["build"] for r in across["rows"]] == [0, 1]
    for row in across["rows"]:
        assert row["h0_to_selected"] == pytest.approx(100 * (row["selected"] - row["h0"]))
    assert across["mean"]["selected"] == pytest.approx(
        sum(r["selected"] for r in across["rows"]) / 2)
    html = path.read_text()
    assert "Across builds" in html and "H0 → selected" in html


def test_a_build_the_student_budget_stopped_is_reported(tmp_path: Path) -> None:
    compile_toy(tmp_path / "s", {"0": "v1", "1": "v2"}, rounds=1, student_token_budget=130)
    path, hc = write_hc_report(tmp_path / "s")
    (build,) = hc["builds"]
    assert build["student_stopped"].startswith("student token budget of 130 reached")
    stopped = [a for a in build["arms"] if a.get("budget_stopped")]
    assert stopped and all(a["mean"] is None for a in stopped)
    html = " ".join(path.read_text().split())
    assert "left items unscored (budget stops, not failures)" in html
    assert f"{hc['result']['student_tokens']} generated tokens of a budget of 130" in html
