"""`tether compile`: flags, a TOML config, --json, --resume, usage errors (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.systems.compile.compiler.conftest import recorded
from tether.cli.hub import main
from tether.systems.compile.compiler.run import CompileRun

TEACHER = "scripted:tether.testing.scripted_teacher:competent"
WEAK = "scripted:tether.testing.scripted_teacher:weak"
STUDENT = "scripted:tether.testing.scripted_teacher:student"
SMALL = ["--probe", "6", "--validation", "6", "--test", "8", "--rounds", "1"]


def _run(args: list[str]):
    return CliRunner().invoke(main, ["compile", *args])


def test_json_has_the_documented_shape(tmp_path: Path) -> None:
    result = _run(["--setting", "toy", "--teacher", TEACHER, "--student", STUDENT, *SMALL,
                   "--protocol", "B", "--out", str(tmp_path / "b"), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert {"selected_hash", "bare", "selected", "h0", "rounds", "teacher_tokens"} <= set(out)
    assert set(out["bare"]) >= {"validation", "test"}
    assert set(out["rounds"][0]) == {"round", "restart", "hash", "admissible", "violations",
                                     "probe", "validation", "decision", "infra_errors",
                                     "error"}
    assert [r["decision"] for r in out["rounds"]] == ["accept", "accept"]
    # every arm says how many of its items were infra errors (never scored), per split
    for arm in ("bare", "selected", "h0", "oneshot"):
        assert out[arm]["infra_errors"] == {"validation": out[arm]["infra_errors"]["validation"],
                                            "test": 0}, arm
    assert out["bare"]["infra_errors"]["validation"] == 0
    assert out["selected"]["validation"] > out["bare"]["validation"]
    assert out["teacher_tokens"] > 0
    # the result is recorded in the run: its `result` event
    with CompileRun.read(tmp_path / "b") as run:
        assert run.result() == out


def test_a_config_file_and_the_summary(tmp_path: Path) -> None:
    config = tmp_path / "compile.toml"
    config.write_text(f'[compile]\nsetting = "toy"\nteacher = "{WEAK}"\nstudent = "{STUDENT}"\n'
                      f'probe = 6\nvalidation = 6\ntest = 8\nrounds = 1\n'
                      f'out = "{tmp_path / "w"}"\n')
    result = _run([str(config)])
    assert result.exit_code == 0, result.output
    assert "nothing beat the bare student" in result.output
    again = _run(["--resume", str(tmp_path / "w"), "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["selected_is_bare"] is True


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('setting = "toy"\nteacher = "x"\nstudent = "y"\nrounds = -1\n')
    assert _run([str(bad), "--out", str(tmp_path / "o")]).exit_code == 2
    unknown = _run(["--setting", "nope", "--teacher", TEACHER, "--student", STUDENT,
                    "--out", str(tmp_path / "n")])
    assert unknown.exit_code == 2 and "unknown setting" in unknown.output
    spec = _run(["--setting", "toy", "--teacher", "nosuch/model", "--student", STUDENT,
                 "--out", str(tmp_path / "s")])
    assert spec.exit_code == 2
    assert _run(["--setting", "toy"]).exit_code == 2
    assert _run(["--resume", str(tmp_path / "none")]).exit_code == 2


def test_comparator_and_teacher_flags_override_the_file(tmp_path: Path) -> None:
    config = tmp_path / "compile.toml"
    config.write_text(f'setting = "toy"\nteacher = "{TEACHER}"\nstudent = "{STUDENT}"\n'
                      'probe = 6\nvalidation = 6\ntest = 8\nrounds = 0\n'
                      'teacher_temperature = 0.9\nteacher_max_tokens = 900\n'
                      'comparators = ["h0", "cot_vote"]\n')
    out = tmp_path / "c"
    result = _run([str(config), "--out", str(out), "--comparators", "student_routed",
                   "--teacher-temperature", "0.2", "--teacher-max-tokens", "700", "--json"])
    assert result.exit_code == 0, result.output
    stored = json.loads((out / "config.resolved.json").read_text())
    assert stored["comparators"] == ["student_routed"]
    assert (stored["teacher_temperature"], stored["teacher_max_tokens"]) == (0.2, 700)
    calls = recorded(out).teacher_calls
    assert calls and {(c["temperature"], c["max_tokens"]) for c in calls} == {(0.2, 700)}
    shown = json.loads(result.stdout)
    assert shown["student_routed"]["test"] is not None and shown["h0"]["test"] is None
    bad = _run([str(config), "--out", str(tmp_path / "d"), "--comparators", "bare,h0"])
    assert bad.exit_code == 2 and "always scored" in bad.output


def test_a_teacher_that_never_answers_is_reported_and_exits_1(tmp_path: Path) -> None:
    dead = "scripted:tether.testing.scripted_teacher:dead"
    args = ["--setting", "toy", "--teacher", dead, "--student", STUDENT, *SMALL]
    shown = _run([*args, "--out", str(tmp_path / "a")])
    assert shown.exit_code == 1
    assert "every teacher call failed: ModelError: scripted teacher: simulated API error" \
        in " ".join(shown.output.split())
    as_json = _run([*args, "--out", str(tmp_path / "b"), "--json"])
    assert as_json.exit_code == 1
    rows = json.loads(as_json.stdout.splitlines()[0])["rounds"]
    assert rows and all(r["decision"] == "error" and "simulated API error" in r["error"]
                        for r in rows)
    fine = _run(["--setting", "toy", "--teacher", WEAK, "--student", STUDENT, *SMALL,
                 "--out", str(tmp_path / "c"), "--json"])
    assert fine.exit_code == 0
    assert all(r["error"] is None for r in json.loads(fine.stdout)["rounds"]
               if r["decision"] != "unparseable")


def test_token_budget_flags_are_kept_and_a_student_stop_is_said(tmp_path: Path) -> None:
    assert "--student-token-budget" in _run(["--help"]).output
    out = tmp_path / "t"
    result = _run(["--setting", "toy", "--teacher", TEACHER, "--student", STUDENT, *SMALL,
                   "--student-token-budget", "100", "--teacher-token-budget", "90000",
                   "--out", str(out)])
    assert result.exit_code == 0, result.output
    stored = json.loads((out / "config.resolved.json").read_text())
    assert (stored["student_token_budget"], stored["teacher_token_budget"]) == (100, 90000)
    shown = " ".join(result.output.split())
    assert "left unscored (not failures): student token budget of 100 reached" in shown
    assert "stopped before the bare floor was scored" in shown
    assert "student tokens:" in shown and "of a budget of 100" in shown
    assert _run(["--setting", "toy", "--teacher", TEACHER, "--student", STUDENT,
                 "--student-token-budget", "0", "--out", str(tmp_path / "z")]).exit_code == 2


def test_a_student_whose_every_call_fails_is_unknown_never_zero(tmp_path: Path) -> None:
    # every student call an API failure: nothing was scored, so no arm has a mean (not 0)
    failing = "scripted:tether.testing.scripted_teacher:dead"  # every call raises
    result = _run(["--setting", "toy", "--teacher", TEACHER, "--student", failing, *SMALL,
                   "--comparators", "none", "--out", str(tmp_path / "b"), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    for arm in ("bare", "selected"):
        assert out[arm]["validation"] is None and out[arm]["test"] is None, out[arm]
    assert out["bare"]["infra_errors"]["test"] == 8
    shown = _run(["--setting", "toy", "--teacher", TEACHER, "--student", failing, *SMALL,
                  "--comparators", "none", "--out", str(tmp_path / "c")])
    assert "the bare student was never scored on test: 8 infra errors" in shown.output
    bare_row = next(line for line in shown.output.splitlines()
                    if line.strip("│┃ ").startswith("bare "))
    assert [c.strip() for c in bare_row.strip("│┃ ").split("│")][:3] == ["bare", "-", "-"]


def test_a_bad_model_spec_leaves_no_run_directory_behind(tmp_path: Path) -> None:
    out = tmp_path / "b"
    bad = _run(["--setting", "toy", "--teacher", TEACHER, "--student", "openai/x;nope=1",
                *SMALL, "--out", str(out)])
    assert bad.exit_code == 2 and "unknown option(s) ['nope']" in bad.output
    assert not out.exists()  # so the corrected command is not refused as "already holds"
    good = _run(["--setting", "toy", "--teacher", TEACHER, "--student", STUDENT, *SMALL,
                 "--comparators", "none", "--out", str(out)])
    assert good.exit_code == 0, good.output


def test_the_test_table_shows_the_arms_asked_and_names_the_others_once(tmp_path: Path) -> None:
    result = _run(["--setting", "toy", "--teacher", TEACHER, "--student", STUDENT, *SMALL,
                   "--comparators", "cot_vote", "--out", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    rows = [line.split("│")[1].strip() for line in result.stdout.splitlines()
            if line.startswith("│")]
    table = rows[rows.index("bare"):]
    assert table[:3] == ["bare", "selected", "cot_vote"]
    assert "h0" not in table and "gepa" not in table
    assert ("not asked (--comparators): h0, oneshot, human_recipe, student_routed, "
            "plain_vote, gepa") in result.stdout
