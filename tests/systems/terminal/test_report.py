"""The Agents section: numbers checked by hand on a run of TrialRecords shaped like the
agent strategies' (`agent` with N = 1, `turn_bon` with three candidates a turn)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.report.conftest import _commit, make_record
from tether.report import build_report, write_report
from tether.runs.store import RunStore
from tether.systems.terminal.report import AGENT_END_STATES

#: (task, seed) -> end state. agent: t0 passes twice, t1 once, t2 never (pass@2 = 2/3,
#: consistency@2 = 1/3). turn_bon: passes every scored trial; t2 seed 1 is an agent_error,
#: which must be left out (counted as a fail, pass@1 would be 5/6).
OUTCOMES = {
    "agent": {("t0", 0): "pass", ("t0", 1): "pass", ("t1", 0): "pass",
              ("t1", 1): "wrong_submission", ("t2", 0): "out_of_context",
              ("t2", 1): "time_limit"},
    "turn_bon": {("t0", 0): "pass", ("t0", 1): "pass", ("t1", 0): "pass",
                 ("t1", 1): "pass", ("t2", 0): "pass", ("t2", 1): "agent_error"},
}
_STATUS = {"pass": "ok", "wrong_submission": "ok", "out_of_context": "truncated",
           "time_limit": "timeout", "format_error": "ok", "agent_error": "error"}
#: turn_bon's turns: the selector picks the edit, then the run of the edited file
BON_TURNS = [(["cat app.py", "echo 'x = 1' > app.py", "ls -la"], 1),
             (["python app.py", "cat app.py", "ls"], 0)]


def _candidate(command: str) -> dict:
    return {"text": f"```bash\n{command}\n```", "command": command, "error": None,
            "output_tokens": 12, "finish_reason": "stop"}


def _turn(step: int, commands: list[str], index: int, selector: bool) -> dict:
    return {"step": step, "command": commands[index], "returncode": 0, "output": "",
            "format_error": None, "timed_out": False, "duration_s": 0.1, "not_run": False,
            "selected_index": index, "candidates": [_candidate(c) for c in commands],
            "selector": {"index": index} if selector else None, "selector_failed": False,
            "selector_skipped": None if selector else "n=1"}


def _extra(strategy: str, state: str, turns: int) -> dict:
    if strategy == "agent":
        records = [_turn(i, [c], 0, False) for i, c in
                   enumerate(["ls", "echo 'x = 1' > app.py", "python app.py", "cat app.py"]
                             * 3)][:turns]
        tokens = {"generator_output": 100}
    else:
        records = [_turn(i, cmds, idx, True) for i, (cmds, idx) in enumerate(BON_TURNS)]
        tokens = {"generator_output": 400, "selector_output": 100}
    return {"end_state": state, "n": 1 if strategy == "agent" else 3, "turns": turns,
            "exit_reason": "submitted", "tokens": tokens, "turn_records": records}


def agent_records() -> list:
    records = []
    for strategy, outcomes in OUTCOMES.items():
        for i, ((task, seed), state) in enumerate(outcomes.items()):
            turns = 3 + i if strategy == "agent" else 2
            records.append(make_record(
                len(records), task, seed, strategy, None, passed=state == "pass",
                status=_STATUS[state], extra=_extra(strategy, state, turns)))
    return records


@pytest.fixture(scope="module")
def agent_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    run = _commit(tmp_path_factory.mktemp("agent_report") / "run", agent_records())
    with RunStore.open(run) as store:
        report = build_report(store)
        out = write_report(report, store, run.parent / "report.html")
    return report.numbers, out


def _row(numbers: dict, arm: str) -> dict:
    (row,) = [r for r in numbers["agents"]["rows"] if r["arm"] == arm]
    return row


def test_every_agent_end_state_has_a_trial_status():
    from tether.core.end_state import AgentEndState, EndState

    assert {s: s.trial_status for s in AgentEndState} == {
        s: EndState(_STATUS[s.value]) for s in AgentEndState}
    assert AGENT_END_STATES == tuple(_STATUS)


def test_end_state_counts(agent_report):
    numbers, _ = agent_report
    assert _row(numbers, "agent")["end_states"] == {
        "pass": 3, "wrong_submission": 1, "out_of_context": 1, "time_limit": 1,
        "format_error": 0, "agent_error": 0}
    bon = _row(numbers, "turn_bon")
    assert bon["end_states"]["pass"] == 5 and bon["end_states"]["agent_error"] == 1
    assert bon["n_trials"] == 6 and bon["n_scored"] == 5


def test_pass_at_k_and_consistency_by_hand(agent_report):
    numbers, _ = agent_report
    agent = _row(numbers, "agent")["across_seeds"]
    assert [p["k"] for p in agent] == [1, 2]
    # per task pass@1 = c/n: (2/2 + 1/2 + 0/2) / 3; pass@2: t0 and t1 have a pass
    assert agent[0]["pass_at_k"] == pytest.approx(0.5)
    assert agent[1]["pass_at_k"] == pytest.approx(2 / 3)
    assert agent[0]["consistency_at_k"] == pytest.approx(2 / 3)
    assert agent[1]["consistency_at_k"] == pytest.approx(1 / 3)
    bon = _row(numbers, "turn_bon")["across_seeds"]
    # t2 has one scored seed, so k stops at 1; the agent_error is not a fail
    assert [p["k"] for p in bon] == [1]
    assert bon[0]["pass_at_k"] == pytest.approx(1.0)


def test_turns_and_tokens(agent_report):
    numbers, _ = agent_report
    agent, bon = _row(numbers, "agent"), _row(numbers, "turn_bon")
    assert agent["turns"]["values"] == [3, 4, 5, 6, 7, 8]
    assert agent["turns"]["mean"] == pytest.approx(5.5)
    assert bon["turns"]["median"] == 2
    assert agent["tokens"] == {"generator": 100.0, "total": 100.0}
    assert bon["tokens"] == {"generator": 400.0, "selector": 100.0, "total": 500.0}
    assert bon["tokens_baseline"] == "agent" and bon["tokens_relative"] == pytest.approx(5.0)
    assert agent["tokens_relative"] == pytest.approx(1.0)


def test_selector_preference_signs(agent_report):
    numbers, _ = agent_report
    assert _row(numbers, "agent")["preferences"] == []  # N = 1: no choice was made
    prefs = {p["label"]: p for p in _row(numbers, "turn_bon")["preferences"]}
    # turn 0: the edit is 1 of 3 candidates and picked; turn 1: no candidate edits
    edits = prefs["edits_file"]
    assert edits["preference"] == pytest.approx((1 - 1 / 3) / 2)
    assert edits["low"] <= edits["preference"] <= edits["high"]
    assert edits["n_turns"] == 12 and edits["n_tasks"] == 3
    # two of three candidates only read, and the selector never picks them
    assert prefs["reads_only"]["preference"] == pytest.approx(-2 / 3)
    assert prefs["tests_last_edit"]["preference"] > 0
    assert prefs["edits_file"]["title"] == "edits a file"


def test_numbers_are_json(agent_report):
    numbers, _ = agent_report
    again = json.loads(json.dumps(numbers["agents"]))
    assert again["rows"][0]["arm"] == "agent"


def test_html_has_the_section_and_its_plots(agent_report):
    _, out = agent_report
    html = out.read_text()
    assert 'id="agents-h"' in html and "Selector behaviour preference" in html
    assert "edits a file" in html and "wrong_submission" in html
    plots = out.parent / "report_assets" / "plots"
    names = {"agents_pass_at_k.png", "agents_consistency_at_k.png", "agents_turns.png",
             "agents_preference_1.png"}
    assert names <= {p.name for p in plots.glob("*.png")}
    assert not (plots / "agents_preference_0.png").exists()  # agent N = 1: no chart
    for name in names:
        assert (plots / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"report_assets/plots/{name}" in html


def test_non_agent_run_has_no_agents_section(pass_report, pass_run):
    assert 'id="agents-h"' not in pass_report.read_text()
    with RunStore.open(pass_run) as store:
        assert build_report(store).numbers["agents"] is None
    assert not list((pass_report.parent / "report_assets" / "plots").glob("agents_*"))


def test_action_counts_per_arm(agent_report):
    numbers, out = agent_report
    assert _row(numbers, "agent")["actions"] == {"turns": 33, "ran": 33, "format_errors": 0,
                                                 "native_share": 0.0}
    assert _row(numbers, "turn_bon")["actions"]["turns"] == 12
    assert "33 / 0, of 33" in out.read_text()


def test_action_counts_see_native_calls_and_format_errors():
    from tether.systems.terminal.report import action_counts

    call = {"id": "a", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
    native = {"text": "", "command": "ls", "tool_calls": [call]}
    text = {"text": "no block", "command": None, "error": "no bash block"}
    records = [{"command": "ls", "format_error": None, "candidates": [native, text]},
               {"command": None, "format_error": "no bash block", "candidates": [text]}]
    assert action_counts(records) == {"turns": 2, "ran": 1, "format_errors": 1,
                                      "native_share": 1 / 3}
    assert action_counts([])["native_share"] is None
