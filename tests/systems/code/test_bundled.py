"""tether's bundled `code` suite: every task is well formed, its reference solution
passes and its wrong solution fails, in the real bwrap sandbox."""

from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path

import pytest

from tests.systems.code.conftest import RunVerdicts, describe
from tether.errors import ConfigError
from tether.suites import load_suite
from tether.systems.code.bundled import (
    FIX_INSTRUCTION,
    CodeTaskSpec,
    load_spec_file,
    task_files,
)

TASKS = load_suite("code")
IDS = [t.id for t in TASKS]


def top_level(script: str) -> list[ast.stmt]:
    return ast.parse(script).body


def test_size_mix_and_order() -> None:
    assert len(TASKS) >= 22
    assert len(set(IDS)) == len(IDS), "ids are unique"
    kinds = Counter(t.data["kind"] for t in TASKS)
    levels = Counter(t.data["difficulty"] for t in TASKS)
    assert kinds["bugfix"] >= 8 and kinds["spec"] >= 8, kinds
    assert levels["moderate"] > levels["easy"] and levels["hard"] >= 3, levels
    # The README demo runs code[:5] with a 135M model: those must be the easy ones.
    assert [t.data["difficulty"] for t in TASKS[:5]] == ["easy"] * 5
    rank = {"easy": 0, "moderate": 1, "hard": 2}
    assert [rank[t.data["difficulty"]] for t in TASKS] == sorted(
        rank[t.data["difficulty"]] for t in TASKS), "ordered by difficulty"


def test_files_are_packaged_and_named_after_their_task() -> None:
    files = task_files()
    assert len(files) == len(TASKS)
    for path, task in zip(files, TASKS, strict=True):
        assert path.name.split("_", 1)[1] == f"{task.id}.json"


@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_task_follows_the_code_task_convention(task) -> None:  # noqa: ANN001
    d = task.data
    assert task.suite == "code" and task.metric == "execution"
    assert task.artifact_kind == "program" and d["check_format"] == "assert"
    # The reference defines the entry point at top level; so does the wrong solution.
    for which in ("reference_solution", "wrong_solution"):
        names = {n.name for n in top_level(d[which])
                 if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        assert d["entry_point"] in names, f"{which} does not define {d['entry_point']}"
    # 8-20 top-level asserts, each with a message.
    hidden = top_level(d["checks"])
    asserts = [s for s in hidden if isinstance(s, ast.Assert)]
    assert 8 <= len(asserts) <= 20, len(asserts)
    assert all(a.msg is not None for a in asserts), "every assert has a message"
    # Visible checks: 1-3 asserts, each statement also among the hidden checks, all
    # shown in the prompt; the hidden-only asserts never are.
    visible = top_level(d["visible_checks"])
    assert 1 <= sum(isinstance(s, ast.Assert) for s in visible) <= 3
    hidden_src = [ast.unparse(s) for s in hidden]
    assert all(ast.unparse(s) in hidden_src for s in visible), "visible is a subset"
    assert d["visible_checks"].strip() in task.prompt
    visible_src = {ast.unparse(s) for s in visible}
    for stmt in asserts:
        if ast.unparse(stmt) not in visible_src:
            assert ast.get_source_segment(d["checks"], stmt) not in task.prompt
    # Bug reports embed the buggy code, which is the wrong solution.
    if d["kind"] == "bugfix":
        assert d["buggy_code"] == d["wrong_solution"]
        assert d["wrong_solution"].strip() in task.prompt
        assert task.prompt.endswith(FIX_INSTRUCTION)
    else:
        assert d["wrong_solution"].strip() not in task.prompt
        assert f"`{d['entry_point']}`" in task.prompt
    assert d["reference_solution"].strip() not in task.prompt


def test_reference_passes_and_wrong_fails_for_every_task(run_verdicts: RunVerdicts) -> None:
    ref = run_verdicts([(t.data["reference_solution"], t.data["checks"]) for t in TASKS])
    wrong = run_verdicts([(t.data["wrong_solution"], t.data["checks"]) for t in TASKS])
    failing_refs = {t.id: describe(r) for t, r in zip(TASKS, ref, strict=True) if r.returncode != 0}
    assert not failing_refs, failing_refs
    passing_wrongs = [t.id for t, r in zip(TASKS, wrong, strict=True) if r.returncode == 0]
    assert not passing_wrongs, passing_wrongs
    # Wrong solutions fail by a failing check or a raised error, not by a timeout or
    # a killed sandbox (that would be an infrastructure failure, not a verdict).
    bad_failures = {t.id: describe(r) for t, r in zip(TASKS, wrong, strict=True)
                    if r.killed_reason is not None or "Traceback" not in r.stderr}
    assert not bad_failures, bad_failures


def test_spec_file_errors_name_file_and_key(tmp_path: Path) -> None:
    good = json.loads(task_files()[0].read_text())
    CodeTaskSpec.model_validate(good)

    bad = dict(good)
    del bad["entry_point"]
    path = tmp_path / "01_bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ConfigError) as err:
        load_spec_file(path)
    assert str(path) in str(err.value) and "'entry_point'" in str(err.value)
    assert f"(id {good['id']!r})" in str(err.value)

    path.write_text(json.dumps({**good, "kind": "refactor"}))
    with pytest.raises(ConfigError) as err:
        load_spec_file(path)
    assert "'kind'" in str(err.value) and "'bugfix' or 'spec'" in str(err.value)

    path.write_text(json.dumps({**good, "hints": "x"}))
    with pytest.raises(ConfigError) as err:
        load_spec_file(path)
    assert "unknown key 'hints'" in str(err.value) and "visible_checks" in (err.value.hint or "")

    path.write_text('{"id": "x", ')
    with pytest.raises(ConfigError, match="invalid JSON"):
        load_spec_file(path)
