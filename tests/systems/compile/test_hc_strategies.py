"""compiled_harness / bare / human_recipe / cot_vote / student_routed as trials, with
scripted students (test doubles) on the toy setting; `tether harness run` end to end."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tether.cli.hub import main
from tether.core.trial import TrialSpec
from tether.models.base import Completion, Usage
from tether.models.errors import ModelError
from tether.runs.trial_runner import run_trial
from tether.systems.compile.baselines import majority, parse_cot, parse_request
from tether.systems.compile.harness import SCHEMA
from tether.systems.compile.tasks import item_of, parse_suite_spec, setting_tasks
from tether.testing.scripted_models import ScriptedModel

TASKS = setting_tasks("toy", "probe", sizes={"probe": 20, "validation": 0, "test": 0})
GOLD = {t.prompt: str(item_of(t)[1].data["answer"]) for t in TASKS}


def trial(strategy, params, reply, task=TASKS[0], model_id="scripted", vlm=False):
    model = ScriptedModel(reply, model_id=model_id, accepts_images=vlm)
    spec = TrialSpec(suite=task.suite, task_id=task.id, strategy=strategy,
                     strategy_params=params, models={"proposer": "x", "student": "x"})
    record, _ = run_trial(spec, task, model_factory=lambda s: model,
                          env=None)
    return record, model


def gold_reply(messages, info):
    text = messages[-1]["content"]
    return next(g for q, g in GOLD.items() if q in text)


def test_tasks_carry_no_gold_and_find_their_item():
    assert len(TASKS) == 20 and parse_suite_spec("harness:docs") == ("docs", "test")
    assert parse_suite_spec("harness-docs:probe") == ("docs", "probe")
    task = TASKS[3]
    assert set(task.data) == {"setting", "split", "item_id", "seed", "sizes"}
    assert GOLD[task.prompt] not in json.dumps(task.data)
    assert item_of(task)[1].item_id == task.id and task.metric == "harness_answer"


def test_bare_scores_the_answer_and_records_hash_tokens_modality():
    right, _ = trial("bare", {}, gold_reply)
    assert right.status == "ok" and right.metric.score == 1.0 and right.metric.passed
    assert right.extra["harness_hash"] and right.extra["student_modality"] == "text"
    assert right.extra["student_calls"] == 1 and right.extra["student_output_tokens"] == 1
    wrong, _ = trial("bare", {}, lambda m, i: "no idea")
    assert wrong.status == "ok" and wrong.metric.score == 0.0
    assert wrong.extra["student_output_tokens"] == 2  # prefill is not counted


def test_human_recipe_parses_and_differs_from_bare():
    reply = lambda m, i: f"Answer: {gold_reply(m, i)}\nbecause."  # noqa: E731
    recipe, _ = trial("human_recipe", {}, reply)
    bare, _ = trial("bare", {}, reply)
    assert recipe.metric.score == 1.0 and bare.metric.score == 0.0
    assert recipe.extra["harness_hash"] != bare.extra["harness_hash"]


def test_hook_error_is_scored_wrong_and_listed():
    doc = {"schema": SCHEMA, "setting": "toy", "prompts": {"answer": "{question}"},
           "hooks": {"parse": "def parse(text, item):\n    return text[1000]\n"}}
    record, _ = trial("compiled_harness", {"harness": doc, "check": False}, gold_reply)
    assert record.status == "ok" and record.metric.score == 0.0
    assert record.extra["outcome"] == "hook_error" and "IndexError" in record.extra["hook_error"]


def test_inadmissible_harness_is_never_scored():
    doc = {"schema": SCHEMA, "setting": "toy", "prompts": {"answer": "{question}"},
           "hooks": {"parse": "def parse(text, item):\n    return eval(text)\n"}}
    record, model = trial("compiled_harness", {"harness": doc}, gold_reply)
    assert record.status == "error" and record.metric is None and model.calls == 0


def test_student_api_failure_is_a_trial_error_never_a_score():
    def broken(messages, info):
        raise ModelError("endpoint down")
    record, _ = trial("bare", {}, broken)
    assert record.status == "error" and record.metric is None
    assert "endpoint down" in record.error_message


def test_image_goes_only_to_a_vlm_student():
    seen = []

    def spy(messages, info):
        seen.append(messages[-1]["content"])
        return "x"
    doc = {"schema": SCHEMA, "setting": "toy", "prompts": {"answer": "{question}"}}
    trial("compiled_harness", {"harness": doc, "modality": "image"}, spy)
    record, _ = trial("compiled_harness", {"harness": doc}, spy, model_id="openai/vlm",
                      vlm=True)
    assert record.extra["student_modality"] == "image"
    assert all(isinstance(c, str) for c in seen)  # the toy setting has no image to send


def test_cot_vote_majority_and_tokens():
    assert parse_cot("thinking...\nAnswer: Paris.") == "Paris"
    assert parse_cot("no answer line") is None
    assert majority(["Lima", "paris", None, "Paris ", "Lima"]) == "Lima"  # tie: earliest
    assert majority([None, None]) == ""
    task = next(t for t in TASKS if t.id.startswith("sum"))
    gold = GOLD[task.prompt]
    replies = [f"Step.\nAnswer: {gold}", "Answer: 0", f"Answer: {gold}", "hmm", "Answer: 1"]
    record, _ = trial("cot_vote", {}, replies, task=task)
    assert record.metric.score == 1.0 and record.extra["votes"][3] == ""
    assert record.extra["student_calls"] == 1
    assert record.extra["student_output_tokens"] == sum(len(r.split()) for r in replies)


def test_student_routed_requests_from_a_menu_and_reads_raw_content():
    assert parse_request("ocr 1500 please", ("ocr",)) == {"ocr": {"max_chars": 1500}}
    assert parse_request("none", ("ocr", "cards")) == {}
    prompts = []

    def student(messages, info):
        prompts.append(messages[-1]["content"])
        return "hint" if len(prompts) == 1 else "?"
    record, _ = trial("student_routed", {}, student)
    assert "- hint" in prompts[0] and "hint:\nThe answer starts with" in prompts[1]
    assert record.extra["requested"] == {"hint": True} and record.extra["student_calls"] == 2


def test_token_accounting_excludes_prefill_with_provider_counts():
    reply = Completion(text="Paris", usage=Usage(input_tokens=500, output_tokens=3,
                                                 reasoning_tokens=4))
    record, _ = trial("bare", {}, [reply])
    assert record.extra["student_output_tokens"] == 7


def test_harness_run_writes_a_run_directory_report_reads(tmp_path):
    path = tmp_path / "h.json"
    path.write_text(json.dumps({"schema": SCHEMA, "setting": "toy",
                                "prompts": {"answer": "Answer briefly: {question}"}}))
    out = tmp_path / "run"
    runner = CliRunner()
    result = runner.invoke(main, ["harness", "run", str(path), "--split", "probe",
                                  "--student", 'scripted:["Paris", "Tokyo", "9"]',
                                  "--limit", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "config.resolved.json").is_file()
    config = json.loads((out / "config.resolved.json").read_text())
    assert config["suites"] == ["harness-toy:probe"]
    assert config["strategies"][0]["params"]["harness"]["prompts"]["answer"]
    report = runner.invoke(main, ["report", str(out)])
    assert report.exit_code == 0, report.output and "3" in report.output


def test_harness_run_refuses_an_inadmissible_harness(tmp_path):
    path = tmp_path / "h.json"
    path.write_text(json.dumps({"schema": SCHEMA, "setting": "toy",
                                "prompts": {"answer": "{question} {{"}}))
    result = CliRunner().invoke(main, ["harness", "run", str(path), "--student",
                                       'scripted:["x"]', "--out", str(tmp_path / "r")])
    assert result.exit_code == 1 and "schema" in result.output
    assert not (tmp_path / "r").exists()
