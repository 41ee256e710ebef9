"""The compile loop with scripted teachers (test doubles) on the toy setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.systems.compile.compiler.conftest import (
    compile_toy,
    decisions,
    recorded,
    rounds_of,
    toy_config,
)
from tether.systems.compile.compiler import Compiler
from tether.systems.compile.harness import bare_harness
from tether.testing.scripted_models import ScriptedModel
from tether.testing.scripted_student import ScriptedStudent
from tether.testing.scripted_teacher import ScriptedTeacher, data_variants


def test_improving_proposals_pass_the_gate_and_b_stops_after_two_no_ops(tmp_path: Path) -> None:
    result, _ = compile_toy(tmp_path, {"0": "v1", "1": "v2", "default": "noop"},
                            protocol="B", rounds=5)
    assert decisions(result) == ["accept", "accept", "no-op", "no-op"]
    assert result["stopped"] == "two consecutive no-ops"
    r = result["rounds"]
    assert result["selected_hash"] == r[1]["hash"] and not result["selected_is_bare"]
    assert r[1]["validation"] > r[0]["validation"] > result["bare"]["validation"]
    assert result["h0"]["hash"] == r[0]["hash"]
    assert result["selected"]["test"] > result["bare"]["test"]


def test_a_tie_keeps_the_bare_floor_and_says_so(tmp_path: Path) -> None:
    result, _ = compile_toy(tmp_path, {"0": "tied", "default": "tied"}, rounds=1)
    assert decisions(result) == ["tie", "tie"]
    assert result["selected_is_bare"] is True
    assert result["selected_hash"] == bare_harness("toy").hash
    assert result["rounds"][0]["validation"] == result["bare"]["validation"]


def test_a_regression_is_rejected(tmp_path: Path) -> None:
    result, _ = compile_toy(tmp_path, {"0": "v2", "1": "v1"}, rounds=1)
    assert decisions(result) == ["accept", "reject"]
    assert result["selected_hash"] == result["rounds"][0]["hash"]
    assert result["rounds"][1]["validation"] < result["rounds"][0]["validation"]


def test_restarts_replace_an_unusable_h0(tmp_path: Path) -> None:
    result, _ = compile_toy(tmp_path / "a", {"0": ["unparseable", "crash", "v1"]},
                            restarts=2, rounds=0)
    assert decisions(result) == ["unparseable", "inadmissible", "accept"]
    crash = result["rounds"][1]
    assert [v["check"] for v in crash["violations"]] == ["smoke"]
    assert [r["restart"] for r in result["rounds"]] == [0, 1, 2]
    fewer, _ = compile_toy(tmp_path / "b", {"0": ["unparseable", "crash", "v1"]},
                           restarts=1, rounds=0)
    assert decisions(fewer) == ["unparseable", "inadmissible"]
    assert fewer["h0"]["hash"] is None and fewer["selected_is_bare"]


def test_inadmissible_proposals_are_never_scored(tmp_path: Path) -> None:
    result, teacher = compile_toy(tmp_path, {"0": ["gold", "open"], "1": "v1"},
                                  restarts=1, rounds=1)
    gold, opened, fixed = result["rounds"]
    assert gold["decision"] == "inadmissible" and gold["violations"][0]["check"] == "hardcoded"
    # the build record keeps the term; the teacher is told only the rule
    assert "paris" in gold["violations"][0]["finding"]
    assert "paris" not in gold["violations"][0]["detail"].casefold()
    assert "paris" not in teacher.prompts[1].casefold()  # the restart prompt
    assert opened["decision"] == "inadmissible" and opened["violations"][0]["check"] == "hooks"
    scored = {p.name.split(".")[0] for p in (tmp_path / "scores").rglob("*.json")}
    assert gold["hash"] not in scored and opened["hash"] not in scored
    assert fixed["decision"] == "accept"
    # the violations reach the teacher: the restart prompt and round 1 (A: the latest)
    assert "hardcoded" in teacher.prompts[1]
    assert "Inadmissible" in teacher.prompts[2] and "hooks" in teacher.prompts[2]


def test_protocol_a_edits_the_latest_and_b_the_incumbent(tmp_path: Path) -> None:
    plan = {"0": "v2", "1": "v1", "2": "noop"}
    a, _ = compile_toy(tmp_path / "a", plan, protocol="A", rounds=2)
    b, _ = compile_toy(tmp_path / "b", plan, protocol="B", rounds=2)
    v2, v1 = a["rounds"][0]["hash"], a["rounds"][1]["hash"]
    ra, rb = rounds_of(tmp_path / "a"), rounds_of(tmp_path / "b")
    assert ra[2]["parent"] == v1 and ra[2]["hash"] == v1  # A: the latest, a rejection
    assert decisions(a) == ["accept", "reject", "reject"]
    assert rb[2]["parent"] == v2 and rb[2]["hash"] == v2  # B: the incumbent
    assert decisions(b) == ["accept", "reject", "no-op"]
    prompt_a = recorded(tmp_path / "a").teacher_call("r02")["prompt"]
    prompt_b = recorded(tmp_path / "b").teacher_call("r02")["prompt"]
    assert f"## The latest proposal (round 1, hash {v1})" in prompt_a
    assert "## The incumbent (hash" not in prompt_a
    assert f"## The incumbent (hash {v2})" in prompt_b
    assert "## The latest rejected proposal (round 1" in prompt_b
    assert "one coherent mechanism change" in prompt_b.lower()


def test_a_failed_teacher_call_is_an_error_round_not_a_no_op(tmp_path: Path) -> None:
    result, _ = compile_toy(tmp_path, {"0": "v1", "1": "noop", "2": "error", "3": "noop",
                                       "4": "unparseable"}, protocol="B", rounds=4)
    assert decisions(result) == ["accept", "no-op", "error", "no-op", "unparseable"]
    assert result["stopped"] == "rounds"
    assert "simulated API error" in rounds_of(tmp_path)[2]["error"]


def test_a_trace_request_is_answered_before_the_proposal(tmp_path: Path) -> None:
    result, teacher = compile_toy(tmp_path, {"0": "v1", "1": "trace>v2"}, rounds=1)
    record = rounds_of(tmp_path)[1]
    assert record["trace_request"] is not None and record["decision"] == "accept"
    answered = recorded(tmp_path).teacher_call("r01-trace")["prompt"]
    assert f"## The probe trace you asked for ({record['trace_request']})" in answered
    assert len(teacher.prompts) == 4  # r00, r01, r01-trace, oneshot


def test_no_teacher_prompt_names_a_held_out_item_or_its_gold(tmp_path: Path) -> None:
    """A teacher that writes validation and test gold into its harness (in a prompt, in
    a hook as a folded expression) never reads a validation/test id or gold back."""
    import json

    from tether.systems.compile.compiler import CompileConfig, Compiler
    from tether.systems.compile.setting import get_setting
    from tether.testing.scripted_models import ScriptedModel
    from tether.testing.scripted_student import ScriptedStudent
    from tether.testing.scripted_teacher import ScriptedTeacher, data_variants

    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps({
        "id": f"item{k:02d}x", "question": f"Which harbour does ferry {k} sail to?",
        "answer": f"Port{k}vale", "context": f"Port{k}vale"}) + "\n" for k in range(20)))
    spec = f"jsonl:{data}"
    sizes = {"probe": 6, "validation": 6, "test": 8}
    splits = get_setting(spec).splits(0, sizes)
    val, test = splits["validation"], splits["test"]
    gold_v, gold_t = val[0].data["answers"][0], test[0].data["answers"][0]
    k = gold_v.removeprefix("Port").removesuffix("vale")
    base = data_variants(spec)["v1"]
    variants = {spec: {
        "goldval": {**base, "prompts": {"answer": base["prompts"]["answer"]
                                        + f"\nPerhaps {gold_v}."}},
        "goldhook": {**base, "hooks": {"parse": "def parse(text, item):\n"
                                                f"    return 'Port' + str({k}) + 'vale'\n"}},
        "goldtest": {**base, "prompts": {"answer": base["prompts"]["answer"]
                                         + f"\nOr {gold_t}."}}}}
    teacher = ScriptedTeacher({"0": ["goldval", "v1"], "1": "goldhook", "2": "goldtest",
                               "default": "noop"}, variants)
    config = CompileConfig(setting=spec, teacher="scripted:t", student="scripted:s",
                           rounds=3, restarts=1, out=str(tmp_path / "b"), **sizes)
    result = Compiler(config, teacher=ScriptedModel(teacher.script),
                      student=ScriptedModel(ScriptedStudent({}).script)).run()
    decisions = [r["decision"] for r in result["rounds"]]
    assert decisions[0] == "inadmissible" and decisions[2] == "inadmissible"
    prompts = [c["prompt"] for c in recorded(tmp_path / "b").teacher_calls]
    assert len(prompts) == len(teacher.prompts) >= 4
    # The test gold the teacher wrote itself comes back verbatim as its own admissible
    # proposal: test gold is never read before the freeze, and removing it from the echo
    # would tell the teacher that the string is a test answer. Nothing else may appear.
    held = [*(i.item_id for i in val + test),
            *(g for i in val + test for g in i.data["answers"] if g != gold_t)]
    for prompt in prompts:
        leaked = [term for term in held if term.casefold() in prompt.casefold()]
        assert not leaked, leaked
    # the build record keeps the full finding for the user
    assert gold_v.casefold() in result["rounds"][0]["violations"][0]["finding"]


def _teacher_spend(out: Path) -> int:
    return sum(int(c["input_tokens"]) + int(c["output_tokens"])
               for c in recorded(out).teacher_calls)


@pytest.mark.parametrize("budget", [100, 6000])
def test_the_teacher_budget_holds_and_the_build_says_why_it_stopped(tmp_path: Path,
                                                                    budget: int) -> None:
    # the real scripted teacher spec (no plan): what a user gets from the CLI
    compiler = Compiler(toy_config(tmp_path / "o", teacher_token_budget=budget, rounds=3))
    result = compiler.run()
    spent = _teacher_spend(tmp_path / "o")
    assert spent == result["teacher_tokens"] <= budget
    refused = [r for r in rounds_of(tmp_path / "o") if r["decision"] == "error"]
    assert refused and all(f"teacher token budget of {budget} reached" in r["error"]
                           for r in refused)
    selected = recorded(tmp_path / "o").selected
    assert selected is not None and selected["stopped"].startswith(
        f"teacher token budget of {budget} reached")
    assert result["stopped"] == selected["stopped"]
    # no round is asked after the refusal
    assert rounds_of(tmp_path / "o")[-1]["decision"] == "error"
    # a refused call was never made: --json counts it apart from the calls
    rows = recorded(tmp_path / "o").teacher_calls
    made = [r for r in rows if r["calls"]]
    assert result["teacher_calls"] == len(made)
    assert len(made) == 0 if budget == 100 else len(made) >= 1  # 100: not even round 0 fits
    assert result["teacher_refusals"] == len(rows) - len(made) >= 1


def _wrong_h0(out: Path, **fields: object) -> tuple[dict[str, object], ScriptedTeacher]:
    """Yes/no rows (bare: the scripted student's coin flips, above 0). H0 answers a word
    no item has (admissible, scored, below bare), then v1 reads the context."""
    import json

    from tether.systems.compile.compiler import CompileConfig

    rows = out.parent / f"{out.name}.jsonl"
    rows.write_text("".join(json.dumps({
        "id": f"f{k:02d}", "question": f"Is ferry {k} late?", "answer": ["yes", "no"][k % 2],
        "context": ["yes", "no"][k % 2]}) + "\n" for k in range(40)))
    spec = f"jsonl:{rows}"
    wrong = {**bare_harness(spec).document(),
             "hooks": {"parse": "def parse(text, item):\n    return 'zzz'\n"}}
    variants = {spec: {**data_variants(spec), "wrong": wrong}}
    teacher = ScriptedTeacher({"0": ["wrong", "v1"], "default": "noop"}, variants)
    config = CompileConfig(setting=spec, teacher="scripted:t", student="scripted:s",
                           probe=10, validation=10, test=10, out=str(out), **fields)
    compiler = Compiler(config, teacher=ScriptedModel(teacher.script),
                        student=ScriptedModel(ScriptedStudent({}).script))
    return compiler.run(), teacher


def test_a_scored_h0_below_bare_is_restarted_by_the_restart_rule(tmp_path: Path) -> None:
    result, teacher = _wrong_h0(tmp_path / "a", rounds=0, restarts=1)
    assert decisions(result) == ["reject", "accept"]
    rejected = result["rounds"][0]
    assert rejected["validation"] < result["bare"]["validation"]
    assert result["h0"]["hash"] == result["rounds"][1]["hash"]
    restart = teacher.prompts[1]
    assert "attempt 2" in restart.splitlines()[0] and "rejected by the gate" in restart
    # the note gives the gate's decision and probe scores, as every teacher prompt does
    note = restart.split("rejected by the gate")[1]
    assert f"its probe score: {rejected['probe']:.3f}" in note

    kept, _ = _wrong_h0(tmp_path / "b", rounds=0, restarts=1, restart_rejected_h0=False)
    assert decisions(kept) == ["reject"] and kept["selected_is_bare"]
    assert kept["h0"]["hash"] == kept["rounds"][0]["hash"]
