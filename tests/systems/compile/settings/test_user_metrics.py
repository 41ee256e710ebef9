"""A user's `--metric module:function`: loading it is checked in one line, it is checked
gold against gold on every row before any model call, and a call that raises or hangs
later is that item's metric error (never scored), not the end of the compile."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli.hub import main

TEACHER = "scripted:tether.testing.scripted_teacher:competent"
STUDENT = "scripted:tether.testing.scripted_teacher:student"
SIZES = ["--probe", "6", "--validation", "6", "--test", "8", "--rounds", "1"]
BODY = """
import time
def score(prediction, gold, item):
    if prediction in gold:          # the gold itself always scores
        return 1.0
    if item["id"].endswith("3"):
        {misbehave}
    return 0.0
"""


def rows(tmp_path: Path, n: int = 24) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({
        "id": f"t{k:02d}", "question": f"Which harbour does ferry {k} sail to?",
        "answer": [f"Port{k}vale"], "context": f"Port{k}vale"}) + "\n" for k in range(n)))
    return path


def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> str:
    (tmp_path / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def compile_(tmp_path: Path, metric: str, *extra: str):
    return CliRunner().invoke(main, ["compile", "--setting", f"jsonl:{rows(tmp_path)}",
                                     "--metric", metric, "--teacher", TEACHER, "--student",
                                     STUDENT, *SIZES, "--out", str(tmp_path / "b"), *extra])


def one_line(res, *needles: str) -> None:
    assert res.exit_code == 2, res.output[-3000:]
    assert "Traceback" not in res.output
    errors = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, res.output[-3000:]
    for n in needles:
        assert n in errors[0], errors[0]


@pytest.mark.parametrize("text, metric, says", [
    ("def score(p, g, i)\n    return 1\n", "m_syntax:score", "SyntaxError"),
    ("raise RuntimeError('no config here')\n", "m_raises:score",
     "RuntimeError: no config here"),
    (None, ":f", "not module:function"),
    ("score = 3\n", "m_value:score", "score is not a function"),
], ids=["syntax-error", "raises-at-import", "empty-module", "not-a-function"])
def test_a_metric_that_cannot_load_is_one_line(tmp_path, monkeypatch, text, metric, says):
    if text is not None:
        module(tmp_path, monkeypatch, metric.split(":")[0], text)
    res = compile_(tmp_path, metric)
    one_line(res, says)
    assert not (tmp_path / "b" / "config.json").exists()


def test_a_metric_failing_on_the_gold_is_refused_before_any_model_call(tmp_path, monkeypatch):
    name = module(tmp_path, monkeypatch, "m_gold", "def score(p, g, i):\n"
                  "    if i['id'] == 't07':\n        raise KeyError('unit')\n    return 1.0\n")
    res = compile_(tmp_path, f"{name}:score")
    one_line(res, "rows.jsonl:8: the metric fails on the row's own gold",
             "KeyError: 'unit'", "item t07")
    assert not (tmp_path / "b" / "config.json").exists()


@pytest.mark.parametrize("misbehave, says", [
    ("raise ValueError('cannot parse ' + prediction)", "raised ValueError: cannot parse"),
    ("time.sleep(60)", "ran past its time limit of 1s"),
    ("return 7", "returned 7: it must return a bool or a number in [0, 1]"),
], ids=["raises", "hangs", "out-of-range"])
def test_a_metric_failing_later_is_that_items_error_not_the_end(tmp_path, monkeypatch,
                                                                 misbehave, says):
    if "sleep" in misbehave:  # a metric call's time limit, shortened for the test
        from tether.systems.compile.settings import metric_process

        monkeypatch.setattr(metric_process, "METRIC_TIMEOUT_S", 1.0)
    name = module(tmp_path, monkeypatch, f"m_later_{abs(hash(misbehave)) % 10**6}",
                  BODY.format(misbehave=misbehave))
    res = compile_(tmp_path, f"{name}:score", "--json")
    assert res.exit_code == 0, res.output[-3000:]
    out = json.loads(res.stdout)
    assert out["bare"]["infra_errors"]["validation"] + out["bare"]["infra_errors"]["test"] >= 1
    # the compile is a run: each failed item is a trial the metric errored, never scored
    trials = [json.loads(line) for line in
              (tmp_path / "b" / "trials.jsonl").read_text().splitlines()]
    errors = [t for t in trials if t["error_kind"] == "metric_error"]
    assert errors and all(says in t["error_message"] for t in errors)
    assert all(t["status"] == "error" and t["extra"]["item_outcome"]["status"] == "metric_error"
               for t in errors)
    assert all(t["extra"]["item_id"].endswith("3") for t in errors)
