"""The hard-coded-answer audit tells a leaking teacher nothing (issue 38 item 1).

A scripted teacher (a test double) writes probe and validation gold, mixed with strings
that are no answer, into its harnesses: as prompt text, as hook literals, as folded
constants. The gate refuses each; every teacher prompt of the compile is scanned for
held-out answers, for the teacher's own refused strings (an echo with the gold cut out
would mark which were gold) and for markers of where an answer was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.systems.compile.compiler.conftest import recorded
from tether.systems.compile.answer_audit import REFUSAL
from tether.systems.compile.compiler import CompileConfig, Compiler
from tether.systems.compile.setting import get_setting
from tether.testing.scripted_leaking_teacher import ScriptedLeakingTeacher
from tether.testing.scripted_models import ScriptedModel
from tether.testing.scripted_student import ScriptedStudent

SIZES = {"probe": 6, "validation": 6, "test": 8}
#: what a redacted echo or a finding's text would leave (answer_audit.Finding.full)
MARKERS = ("held-out term", "removed]", "[held", "redact", ": contains '", "hooks.parse line",
           "(gold answer of", "(inventory entity")


def _rows(path: Path) -> str:
    path.write_text("".join(json.dumps({
        "id": f"ferry{k:02d}", "question": f"Which harbour does ferry {k} sail to?",
        "answer": f"Port{k}vale", "context": f"Port{k}vale"}) + "\n" for k in range(20)))
    return f"jsonl:{path}"


@pytest.mark.parametrize("protocol", ["A", "B"])
def test_a_leaking_teacher_reads_no_held_out_answer_and_no_marker_of_one(
        tmp_path: Path, protocol: str) -> None:
    spec = _rows(tmp_path / "rows.jsonl")
    splits = get_setting(spec).splits(0, SIZES)
    gold = {s: [a for i in splits[s] for a in i.data["answers"]] for s in splits}
    decoys = ["Harbourfield", "Quayside", "Northmoor"]
    teacher = ScriptedLeakingTeacher(
        {"0": ["leak_prompt", "v1"], "1": "leak_hook", "2": "leak_folded",
         "3": "leak_prompt", "default": "noop"},
        answers=[*gold["probe"], *gold["validation"]], decoys=decoys)
    config = CompileConfig(setting=spec, teacher="scripted:t", student="scripted:s",
                           rounds=4, restarts=1, protocol=protocol,
                           out=str(tmp_path / "c"), **SIZES)
    result = Compiler(config, teacher=ScriptedModel(teacher.script),
                      student=ScriptedModel(ScriptedStudent({}).script)).run()

    prompts = [c["prompt"] for c in recorded(tmp_path / "c").teacher_calls]
    assert sorted(prompts) == sorted(teacher.prompts) and len(prompts) >= 5
    held = [i.item_id for s in ("validation", "test") for i in splits[s]]
    held += gold["validation"] + gold["test"] + decoys
    for prompt in prompts:
        folded = prompt.casefold()
        assert [t for t in held if t.casefold() in folded] == []
        assert [m for m in MARKERS if m.casefold() in folded] == []

    rounds = result["rounds"]
    refused = [r for r in rounds if r["decision"] == "inadmissible"]
    assert [r["round"] for r in refused] == [0, 1, 2, 3]
    assert all([v["check"] for v in r["violations"]] == ["hardcoded"] for r in refused)
    # the refusal reads the same whichever strings caused it; the user's record names them
    assert {v["detail"] for r in refused for v in r["violations"]} == {REFUSAL}
    for r in refused:
        assert any(g.casefold() in r["violations"][0]["finding"].casefold()
                   for g in gold["validation"])

    # the refused proposals were shown back as their verdict only
    assert sum(REFUSAL in p for p in prompts) >= 3


def test_the_refusal_is_the_same_for_probe_and_validation_gold(tmp_path: Path) -> None:
    from tether.systems.compile.admissibility import check_harness
    from tether.testing.scripted_teacher import data_variants

    spec = _rows(tmp_path / "rows.jsonl")
    setting = get_setting(spec)
    splits = setting.splits(0, SIZES)
    base = data_variants(spec)["v1"]
    details = set()
    for split in ("probe", "validation"):
        answer = splits[split][0].data["answers"][0]
        doc = {**base, "prompts": {"answer": base["prompts"]["answer"] + f"\nMaybe {answer}."}}
        report = check_harness(doc, setting, sizes=SIZES)
        [v] = report.violations
        assert answer.casefold() in v.finding.casefold()
        details.add(v.detail)
    assert details == {REFUSAL}


def test_a_data_files_options_are_exempt_only_when_every_row_lists_them(tmp_path: Path) -> None:
    path = tmp_path / "mc.jsonl"
    rows = [{"id": f"q{k}", "question": f"Where does ferry {k} go?",
             "choices": ["yes", "no", f"Port{k}vale"], "answer": f"Port{k}vale"}
            for k in range(8)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    setting = get_setting(f"jsonl:{path};metric=choice")
    # the shared labels are the task's own words; one row's option is another's answer
    assert setting.public_vocabulary() == ["no", "yes"]
