"""`tether harness hash|check`: output and exit codes."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tether.cli.hub import main
from tether.systems.compile.harness import SCHEMA, Harness

GOOD = {"schema": SCHEMA, "setting": "toy", "prompts": {"answer": "Answer briefly: {question}"}}


def write(tmp_path, doc, name="h.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def test_hash_prints_the_identity(tmp_path):
    result = CliRunner().invoke(main, ["harness", "hash", write(tmp_path, GOOD)])
    assert result.exit_code == 0
    assert result.output.strip() == Harness.model_validate(GOOD).hash


def test_check_admissible_exits_0(tmp_path):
    result = CliRunner().invoke(main, ["harness", "check", write(tmp_path, GOOD),
                                       "--setting", "toy"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("admissible on toy: ")


def test_check_inadmissible_exits_1_with_one_line_per_violation(tmp_path):
    bad = {**GOOD, "prompts": {"answer": "{question} maybe Paris or Tokyo? {x:>3}"},
           "decode": {"max_tokens": 5000}}
    result = CliRunner().invoke(main, ["harness", "check", write(tmp_path, bad)])
    assert result.exit_code == 1
    head, *lines = result.output.strip().splitlines()
    assert head.endswith(": not admissible on toy: 2 problems")
    assert len(lines) == 2 and all(line.startswith("  [schema] ") for line in lines)


def test_check_json(tmp_path):
    bad = {**GOOD, "prompts": {"answer": "{question} maybe Paris or Tokyo?"}}
    result = CliRunner().invoke(main, ["harness", "check", write(tmp_path, bad), "--setting",
                                       "toy", "--json"])
    assert result.exit_code == 1
    out = json.loads(result.stdout)
    assert out["admissible"] is False and out["hash"] == Harness.model_validate(bad).hash
    # one refusal whatever was found (the teacher reads it); the findings name both terms
    [v] = out["violations"]
    assert v["check"] == "hardcoded" and "'paris'" in v["finding"] and "'tokyo'" in v["finding"]


def test_unreadable_file_or_unknown_setting_exits_2(tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["harness", "check", str(tmp_path / "none.json")]).exit_code == 2
    assert runner.invoke(main, ["harness", "check", write(tmp_path, "{oops")]).exit_code == 2
    unknown = runner.invoke(main, ["harness", "check", write(tmp_path, GOOD), "--setting", "zz"])
    assert unknown.exit_code == 2 and "known settings: " in unknown.output
    assert runner.invoke(main, ["harness", "hash", write(tmp_path, {"x": 1})]).exit_code == 2


def test_check_reports_a_prompt_field_no_observation_has(tmp_path):
    bad = {**GOOD, "prompts": {"answer": "Context: {ocr}\nQuestion: {question}"}}
    result = CliRunner().invoke(main, ["harness", "check", write(tmp_path, bad), "--json"])
    assert result.exit_code == 1
    out = json.loads(result.stdout)
    assert [v["check"] for v in out["violations"]] == ["schema"]
    assert out["violations"][0]["detail"].startswith("prompts.answer: unknown field {ocr}")
    fixed = {**GOOD, "prompts": {"answer": "Context: {hint}\nQuestion: {question}"},
             "resources": {"hint": True}}
    assert CliRunner().invoke(main, ["harness", "check", write(tmp_path, fixed)]).exit_code == 0


def _proposal(tmp_path, kind):
    """A build's proposal file (a harness document), cut short or with a wrong type."""
    from pathlib import Path

    found = sorted((Path(__file__).resolve().parents[3] / "fixtures" / "compile_build" /
                    "builds" / "0" / "proposals").glob("*.json"))[0]
    text = found.read_text(encoding="utf-8")
    path = tmp_path / f"{kind}.json"
    if kind == "truncated":
        path.write_text(text[: len(text) // 2], encoding="utf-8")
    else:
        doc = json.loads(text)
        doc["decode"] = "fast"
        path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_damaged_proposal_file_is_one_line_for_every_harness_command(tmp_path):
    """Cut short: exit 2 naming the file; wrong-typed: `hash` exits 2, `check` and `run`
    report it as the schema violation that makes it inadmissible (exit 1)."""
    for kind, codes in (("truncated", (2, 2, 2)), ("wrong-typed", (2, 1, 1))):
        path = _proposal(tmp_path, kind)
        for command, code in zip(("hash", "check", "run"), codes, strict=True):
            extra = ["--student", "scripted:[]", "--out", str(tmp_path / "r")] \
                if command == "run" else []
            result = CliRunner().invoke(main, ["harness", command, str(path), *extra])
            assert result.exit_code == code, (kind, command, result.output)
            lines = [ln for ln in result.output.splitlines() if ln.strip()]
            assert "Traceback" not in result.output
            if code == 2:
                assert lines[0].startswith(f"error: harness {path} is not"), lines
            else:
                finding = ("`decode`: input should be a valid dictionary or instance of "
                           "Decode")
                if command == "check":
                    assert lines == [f"{path}: not admissible on toy: 1 problem",
                                     f"  [schema] {finding}"], lines
                else:
                    assert lines[0] == f"schema: {finding}", lines


def test_run_refuses_a_bad_student_spec_by_its_flag_and_writes_no_run(tmp_path):
    out = tmp_path / "run"
    for spec, needle in (("testing:echo", "unknown model spec 'testing:echo'"),
                         ("openai/x;bogus=1", "unknown option(s) ['bogus']")):
        result = CliRunner().invoke(main, ["harness", "run", "recipe", "--setting", "toy",
                                           "--student", spec, "--out", str(out)])
        assert result.exit_code == 2, result.output
        first = result.output.strip().splitlines()[0]
        assert first.startswith(f"error: --student {spec!r}: ") and needle in first
        assert "models[" not in result.output and "harness-run.json" not in result.output
        assert not out.exists()


def test_run_deploys_the_recipe_on_the_toy_test_split(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["harness", "run", "recipe", "--setting", "toy",
                                       "--student", 'scripted:["11"]', "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "10 items" in result.output  # the toy's 20 items fit as 5 / 5 / 10
    assert (out / "config.resolved.json").exists()
    assert len((out / "trials.jsonl").read_text().splitlines()) == 10
