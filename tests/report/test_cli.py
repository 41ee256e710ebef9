import json

from click.testing import CliRunner

from tether.cli import main


def test_report_writes_html_and_prints_its_path(defect_run):
    result = CliRunner().invoke(main, ["report", str(defect_run)])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1] == f"report: {(defect_run / 'report.html').resolve()}"
    assert "paired against single_shot" in result.output
    assert "+65.0% fewer defects" in result.output
    assert (defect_run / "report_assets" / "plots" / "scaling.png").is_file()


def test_a_run_report_into_a_folder_not_made_yet(defect_run, tmp_path):
    out = tmp_path / "new" / "deeper" / "report.html"
    result = CliRunner().invoke(main, ["report", str(defect_run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_file() and (out.parent / "report_assets" / "plots" / "scaling.png").is_file()


def test_json_gives_the_numbers_and_compare_sets_a_run_beside(defect_run, tmp_path):
    out = tmp_path / "x.html"
    result = CliRunner().invoke(main, ["report", str(defect_run), "--out", str(out),
                                       "--compare", str(defect_run), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["report"] == str(out.resolve()) and out.is_file()
    assert {"summary", "paired", "within_trial", "run", "metric", "trials"} <= set(data)
    assert data["baseline"] == "single_shot"
    assert data["compare"]["n_matched"] == 12
    assert all(r["ties"] == r["n_pairs"] for r in data["compare"]["paired"])


def test_bad_run_dir_is_one_line_and_a_hint(tmp_path):
    result = CliRunner().invoke(main, ["report", str(tmp_path / "nope")])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 2 and "not a run directory" in lines[0] and "hint" in lines[1]
    assert "Traceback" not in result.output


def test_unknown_baseline_lists_the_arms(pass_run):
    result = CliRunner().invoke(main, ["report", str(pass_run), "--baseline", "iad"])
    assert result.exit_code == 2
    assert "single_shot" in result.output and "self_loop" in result.output


def test_a_stopped_attempt_with_a_passing_state_is_a_failure_in_the_json_summary(tmp_path):
    """The turn-level best-of-N paper's rule, read once by every section: the verifier
    passes both final states, but only the attempt that submitted has passed."""
    from tests.report.conftest import _commit, make_record

    def agent(index: int, seed: int, end_state: str):
        return make_record(index, "t0", seed, "agent", None, passed=True,
                           status="timeout" if end_state == "time_limit" else "ok",
                           extra={"end_state": end_state, "turns": 3, "n": 1,
                                  "exit_reason": "step_limit" if end_state == "time_limit"
                                  else "submitted"})

    run = _commit(tmp_path / "run", [agent(0, 0, "time_limit"), agent(1, 1, "pass")])
    result = CliRunner().invoke(main, ["report", str(run), "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)["summary"]
    assert (row["score"]["n"], row["score"]["passed"], row["score"]["value"]) == (2, 1, 0.5)
    # the papers' mean +- SD over seeds, both SD conventions (seed pass rates 0 and 1)
    assert row["score"]["over_seeds"] == {"seeds": 2, "values": [0.0, 1.0], "mean": 0.5,
                                          "sd_sample": 0.5 ** 0.5, "sd_population": 0.5}
