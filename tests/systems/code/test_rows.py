"""`jsonl:PATH` code suites: HumanEval, MBPP and tether rows, mapped and run."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.errors import ConfigError
from tether.suites import load_suite

HUMANEVAL = {"task_id": "Mine/0", "entry_point": "double",
             "prompt": 'def double(x):\n    """Twice x.\n    >>> double(2)\n    4\n    """\n',
             "canonical_solution": "    return 2 * x\n",
             "test": "def check(candidate):\n    assert candidate(3) == 6\n"}
MBPP = {"task_id": 11, "text": "Write a function to add the tax to a price.",
        "code": "import math\ndef add_tax(price, rate):\n    return round(price * (1 + rate), 2)\n",
        "test_list": ["assert add_tax(100, 0.2) == 120.0", "assert add_tax(0, 0.5) == 0.0"],
        "test_setup_code": "", "challenge_test_list": ["assert add_tax(10, 0.1) == 11.0"]}
TETHER = {"id": "inc", "prompt": "Write inc(n). Return it in a ```python block.",
          "metric": "execution",
          "data": {"checks": "assert inc(1) == 2", "entry_point": "inc",
                   "reference_solution": "def inc(n):\n    return n + 1\n"}}


def write(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_three_row_shapes_map_to_code_tasks(tmp_path: Path) -> None:
    tasks = load_suite(f"jsonl:{write(tmp_path / 'mixed.jsonl', [HUMANEVAL, MBPP, TETHER])}")
    he, mbpp, own = tasks
    assert [t.id for t in tasks] == ["Mine_0", "11", "inc"]
    assert {t.suite for t in tasks} == {"mixed"} and {t.metric for t in tasks} == {"execution"}
    # the humaneval suite's own mapping: prompt + completion assembly included
    assert he.data["completion_prefix"] == HUMANEVAL["prompt"]
    assert he.data["checks"].endswith("check(double)\n")
    assert mbpp.data["entry_point"] == "add_tax"
    assert "assert add_tax(100, 0.2) == 120.0" in mbpp.prompt
    assert "add_tax(10, 0.1)" not in mbpp.prompt  # the challenge test stays hidden
    assert "assert add_tax(10, 0.1) == 11.0" in mbpp.data["checks"]
    assert mbpp.data["reference_solution"] == MBPP["code"]
    assert own.data["entry_point"] == "inc"


@pytest.mark.parametrize(("row", "message"), [
    ({"question": "q", "answer": "a"}, r"rows.jsonl:2: not a code task row \(keys: answer"),
    ({**MBPP, "test_list": []}, r"rows.jsonl:2: MBPP row: 'test_list' must be"),
    ({**MBPP, "test_list": ["assert True"]}, r"rows.jsonl:2: MBPP row: the first test calls"),
    ({**HUMANEVAL, "test": ""}, r"rows.jsonl:2: missing or empty test"),
    ({**TETHER, "metric": ""}, r"rows.jsonl: line 2 \(id 'inc'\)"),
    (HUMANEVAL, r"rows.jsonl:2: duplicate task id 'Mine_0' \(first on line 1\)"),
])
def test_a_bad_row_names_its_line(tmp_path: Path, row: dict, message: str) -> None:
    path = write(tmp_path / "rows.jsonl", [HUMANEVAL, row])
    with pytest.raises(ConfigError, match=message):
        load_suite(f"jsonl:{path}")


DOUBLE = '''
import json, os
from tether.models.base import text_of
from tether.suites import load_suite


def reference(messages, info):
    shown = text_of(messages[-1])
    for task in load_suite("jsonl:" + os.environ["CODE_ROWS_FILE"]):
        if task.prompt in shown:
            program = task.data["reference_solution"]
            prefix = task.data.get("completion_prefix")
            body = program[len(prefix):] if prefix else program  # HumanEval: body only
            return "```python\\n" + body + "\\n```"
    raise KeyError("not a task of the file")
'''


def test_tether_run_passes_every_reference(tmp_path: Path, monkeypatch) -> None:
    """TEST DOUBLE proposer: answers each task's reference (HumanEval's as the body
    only, completed with the prompt by the humaneval suite's convention)."""
    path = write(tmp_path / "mixed.jsonl", [HUMANEVAL, MBPP, TETHER])
    (tmp_path / "code_rows_double.py").write_text(DOUBLE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CODE_ROWS_FILE", str(path))
    config = tmp_path / "run.toml"
    config.write_text(textwrap.dedent(f'''\
        name = "rows"
        suites = ["jsonl:{path}"]
        seeds = 1
        [models]
        proposer = "scripted:code_rows_double:reference"
        [[strategies]]
        name = "single_shot"
        '''))
    result = CliRunner().invoke(main, ["run", str(config), "--out", str(tmp_path / "run"),
                                       "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output[result.output.index("{"):])
    [arm] = summary["arms"]
    assert (arm["trials"], arm["passed"]) == (3, 3), arm


def test_the_row_shapes_through_datasets_as_through_jsonl(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    datasets.disable_progress_bars()
    # one shape per dataset: a column table gives every row every column
    for name, row in (("he", HUMANEVAL), ("mbpp", MBPP)):
        jsonl = write(tmp_path / f"{name}.jsonl", [row])
        table = datasets.Dataset.from_list([row])
        table.save_to_disk(str(tmp_path / name))
        table.to_parquet(str(tmp_path / f"{name}.parquet"))
        expected = load_suite(f"jsonl:{jsonl}")
        for spec in (f"hf:{tmp_path / name}", f"parquet:{tmp_path / name}.parquet",
                     f"hf:{jsonl}"):
            assert load_suite(spec) == expected, spec


def test_a_bad_dataset_row_names_its_row(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    datasets.disable_progress_bars()
    datasets.Dataset.from_list([MBPP, {**MBPP, "task_id": 12, "test_list": []}]).to_parquet(
        str(tmp_path / "rows.parquet"))
    with pytest.raises(ConfigError, match=r"rows.parquet:2: MBPP row: 'test_list' must be"):
        load_suite(f"parquet:{tmp_path / 'rows.parquet'}")
    datasets.Dataset.from_list([MBPP, MBPP]).save_to_disk(str(tmp_path / "dup"))
    with pytest.raises(ConfigError, match=r"duplicate task id '11' \(first on row 1\)"):
        load_suite(f"hf:{tmp_path / 'dup'}")
