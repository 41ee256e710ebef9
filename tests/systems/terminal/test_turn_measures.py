"""The paper's Figure 5 measures, checked by hand: per turn, the executed pick's reasoning
tokens and command characters, the uniform pick's, and the difference to the baseline."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tether.systems.terminal.turn_measures import per_turn, turn_values


def cand(command: str | None, reasoning: int) -> dict:
    return {"command": command, "reasoning_tokens": reasoning}


def entry(task: str, seed: int, turns: list[dict]):
    record = SimpleNamespace(extra={"turn_records": turns})
    return SimpleNamespace(record=record, key=(task, seed))


BON = [{"selected_index": 1, "candidates": [cand("ls", 10), cand("make && ./run", 30),
                                             cand(None, 20)]},
       {"selected_index": 0, "candidates": [cand("cat a", 40), cand("ls", 0)]}]
BASE = [{"selected_index": 0, "candidates": [cand("ls", 5)]}]


def test_values_of_the_pick_and_of_a_uniform_pick():
    assert turn_values(BON, "command_chars") == [(13.0, (2 + 13) / 2), (5.0, 3.5)]
    assert turn_values(BON, "reasoning_tokens") == [(30.0, 20.0), (40.0, 20.0)]
    assert turn_values(BASE, "command_chars") == [(2.0, None)]  # one candidate: no uniform


def test_against_the_baseline_per_task_means():
    bon = [entry(f"t{i}", 0, BON) for i in range(6)]
    base = [entry(f"t{i}", 0, BASE) for i in range(6)]
    measures = per_turn(bon, base)
    chars = measures["command_chars"]
    assert (chars["n_turns"], chars["picked"], chars["uniform"]) == (12, 9.0, 5.5)
    assert chars["vs_baseline"]["difference"] == pytest.approx(9.0 - 2.0)
    assert chars["vs_baseline"]["p_value"] < 0.05 and chars["vs_baseline"]["n_tasks"] == 6
    assert per_turn(base, base)["reasoning_tokens"]["vs_baseline"] is None
