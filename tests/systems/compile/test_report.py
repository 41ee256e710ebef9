"""The HC report of a compile (a run directory: the hub's report with the compile
section), and the shared interventions table."""

from __future__ import annotations

import json
import shutil
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


def test_html_and_the_report_command(built: Path, tmp_path: Path) -> None:
    path, _ = write_hc_report(built, tmp_path / "hc.html")
    html = path.read_text()
    assert "Build 0" in html and "Interventions on the selection" in html
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(built), "--json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    # the hub's report of the compile's trials, with the compile's section in it
    page = out.read_text()
    assert "Harness compilation" in page and "Build 0" in page
    assert "Interventions on the selection" in page
    shown = json.loads(result.stdout)
    assert shown["report"] == str(out.resolve())
    assert shown["baseline"] == "bare"  # the scorings' arms paired against bare
    paired = {r["arm"]: r for r in shown["paired"]}
    assert paired["cot_vote"]["baseline"] == "bare" and paired["cot_vote"]["n_pairs"] == 8
    (hc,) = shown["harness_builds"]["builds"]
    assert hc == {**hc_numbers(built), "dir": str(built)}
    # the first screen leads with the selection on test, not the first arm over all splits
    (build,) = hc["builds"]
    lead = shown["headline"]["lead"]
    assert lead.startswith(f"Harness compilation: the selected harness "
                           f"{build['selected_hash'][:12]} scores ")
    assert f'<p class="answer">{lead.replace(chr(39), "&#39;")}</p>' in page
    assert build_dirs(built.parent) == [built]  # what a run directory's report shows


def test_calls_the_teacher_budget_refused_are_counted_apart(tmp_path: Path) -> None:
    compile_toy(tmp_path / "b", {"0": "v1", "1": "v2"}, rounds=1, teacher_token_budget=100)
    (build,) = hc_numbers(tmp_path / "b")["builds"]
    assert build["teacher"]["calls"] == 0 and build["teacher"]["errors"] == 0
    assert build["teacher"]["refusals"] >= 1
    path, _ = write_hc_report(tmp_path / "b")
    assert "not made (its token budget refused them)" in path.read_text()


def test_a_build_report_into_a_folder_not_made_yet(tmp_path: Path) -> None:
    built = tmp_path / "build"  # a build directory of an earlier tether: its own page
    shutil.copytree(Path(__file__).resolve().parents[2] / "fixtures" / "compile_build", built)
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


def test_a_compile_s_scorings_export_to_inspect_one_log_per_arm(built: Path,
                                                                 tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log

    from tether.runs import RunStore

    with RunStore.open(built, readonly=True) as store:
        trials = store.trials()
    arms: dict[str, int] = {}
    for t in trials:
        arms[t.spec.arm] = arms.get(t.spec.arm, 0) + 1
    assert arms["bare"] == 6 + 6 + 8  # probe, validation and test items of the bare floor
    out = tmp_path / "inspect"
    result = CliRunner().invoke(main, ["export", str(built), "--format", "inspect",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    logs = {p.stem: read_eval_log(str(p)) for p in out.glob("*.eval")}
    assert set(logs) == {a.replace(" ", "_").replace("+", "_") for a in arms}
    bare = logs["bare"]
    assert bare.samples is not None and len(bare.samples) == arms["bare"]
    scored = [s.scores for s in bare.samples if s.scores]
    assert len(scored) == arms["bare"]  # every item of bare was scored (no infra error)


def test_a_compile_s_scorings_rescore_to_the_same_scores(built: Path, tmp_path: Path) -> None:
    from tether.runs import RunStore

    out = tmp_path / "rescored"
    result = CliRunner().invoke(main, ["rescore", str(built), "--metric", "harness_answer",
                                       "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    with RunStore.open(built, readonly=True) as a, RunStore.open(out, readonly=True) as b:
        before = {t.trial_id: t.score for t in a.trials()}
        after = {t.trial_id: t.score for t in b.trials()}
    assert after == before and len(before) > 20


def test_a_compile_with_no_scored_item_still_reports(tmp_path: Path) -> None:
    """A student budget too small for one call: no trial, a frozen bare selection; the
    report is the compile's own page (the hub has no trial to show)."""
    compile_toy(tmp_path / "z", {"0": "v1"}, rounds=0, comparators=[], student_token_budget=1)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(tmp_path / "z"), "--json",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["builds"][0]["selected_is_bare"] is True
    assert shown["result"]["student_tokens"] == 0 and "Build 0" in out.read_text()
