"""`tether run` -> `tether rescore` -> `tether report --compare` on a scripted experiment."""

import json

from click.testing import CliRunner

from tether.cli import main

SUITE = [{"id": tid, "prompt": f"Say {word}", "metric": "scripted_check",
          "artifact_kind": "text", "data": {"expect": word}}
         for tid, word in (("t1", "alpha"), ("t2", "beta"), ("t3", "delta"))]

# The scripted proposer (a test double) drafts "alpha" (right for t1 only) and revises
# to a text with every word, so the loop fixes t2 and t3 after one feedback round.
CONFIG = """name = "report-e2e"
suites = ["tether:suite.json"]
seeds = [0, 1]
budgets = [1000]
[models]
proposer = 'scripted:["alpha", "alpha beta delta"]'
[[strategies]]
name = "single_shot"
[[strategies]]
name = "self_loop"
label = "L"
params = {max_iterations = 2, feedback = "scripted_check", max_tokens = 64}
[run]
concurrency = 1
sandbox = "subprocess"
"""


def test_report_of_a_run_and_its_rescoring(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "suite.json").write_text(json.dumps(SUITE))
    (tmp_path / "exp.toml").write_text(CONFIG)
    runner = CliRunner()
    ran = runner.invoke(main, ["run", "exp.toml", "--out", "run", "--json"])
    assert ran.exit_code in (0, 1), ran.output
    rescored = runner.invoke(main, ["rescore", "run", "--metric", "scripted_check",
                                    "--out", "rescored", "--json"])
    assert rescored.exit_code in (0, 1), rescored.output
    result = runner.invoke(main, ["report", "run", "--compare", "rescored", "--json"])
    assert result.exit_code == 0, result.output
    n = json.loads(result.output)
    assert [(r["arm"], r["score"]["passed"], r["score"]["n"]) for r in n["summary"]] == [
        ("single_shot", 2, 6), ("L", 6, 6)]
    (paired,) = n["paired"]
    assert (paired["baseline"], paired["arm"]) == ("single_shot", "L")
    assert (paired["improved"], paired["regressed"], paired["ties"]) == (4, 0, 2)
    assert paired["p_value"] == 0.125
    (within,) = n["within_trial"]
    assert (within["improved"], within["regressed"]) == (4, 0)
    assert n["compare"]["n_matched"] == 12
    assert n["compare"]["agreement"]["only_here"] == n["compare"]["agreement"]["only_there"] == 0
    assert n["run"]["tether_commit"]  # the runner records the checkout's commit
    assert (tmp_path / "run" / "report.html").is_file()
