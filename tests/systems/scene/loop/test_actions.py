"""The generator's reply format, the vote, the window and the judge's answers (no Blender)."""

from __future__ import annotations

from tether.systems.scene.loop.actions import parse_reply, vote
from tether.systems.scene.loop.judges import parse_choice
from tether.systems.scene.loop.messages import Window, content, state_summary

PROGRAM = "import bpy\nbpy.data.objects['Box'].location.y = 2.0\n"


def test_edit_with_a_program_is_parsed_with_decorated_action_lines() -> None:
    for line in ("ACTION: edit", "**Action:** Edit", "action = edit", "# ACTION - EDIT"):
        a = parse_reply(f"{line}\nMoving it.\n```python\n{PROGRAM}```\n")
        assert (a.kind, a.program, a.inferred) == ("edit", PROGRAM, False), line


def test_a_bare_code_block_is_an_inferred_edit_and_json_names_an_action() -> None:
    a = parse_reply(f"Here it is:\n```python\n{PROGRAM}```")
    assert (a.kind, a.inferred) == ("edit", True)
    assert parse_reply('{"action": "end"}').kind == "end"


def test_invalid_replies_say_why() -> None:
    assert parse_reply("I think the box should move.").error == "no action line"
    assert parse_reply("ACTION: edit\nI will move it.").error.startswith("edit without")
    assert parse_reply(f"ACTION: edit\n```python\n{PROGRAM}").error == "truncated"
    assert parse_reply("ACTION: plan\n").error == "plan without text"
    assert not parse_reply("ACTION: fly").valid


def test_plan_and_inspect_keep_their_text() -> None:
    plan = parse_reply("ACTION: plan\n1. move the box\n2. check")
    assert (plan.kind, plan.text) == ("plan", "1. move the box\n2. check")
    assert parse_reply("ACTION: inspect").kind == "inspect"


def test_vote_takes_the_most_frequent_valid_type_ties_to_the_first_seen() -> None:
    edit = parse_reply(f"ACTION: edit\n```python\n{PROGRAM}```")
    plan = parse_reply("ACTION: plan\nmove it")
    bad = parse_reply("nonsense")
    assert vote([plan, edit, edit, bad]) == "edit"
    assert vote([plan, edit, bad, bad]) == "plan"  # 1-1 tie: plan came first
    assert vote([bad, bad]) is None


def test_judge_choice_parsing() -> None:
    assert parse_choice("B") == "B"
    assert parse_choice("a.") == "A"
    assert parse_choice("Render B is closer.") == "B"
    assert parse_choice("neither") is None


def test_window_keeps_pinned_messages_and_the_last_n() -> None:
    w = Window(pinned=[{"role": "system", "content": "s"}, {"role": "user", "content": "task"}],
               limit=3)
    for i in range(5):
        w.add("assistant", f"a{i}")
        w.add("user", f"u{i}")
    w.plan = "the plan"
    msgs = w.messages()
    assert msgs[0]["content"] == "s"
    # task, plan and the first kept message (u3, a user message) merge into one
    assert [p["text"] for p in msgs[1]["content"] if p["text"] != "\n\n"] == [
        "task", "Your plan (pinned):\nthe plan", "u3"]
    assert [m["content"] for m in msgs[2:]] == ["a4", "u4"]
    turns = [{"role": r, "content": "x"} for _ in range(15) for r in ("assistant", "user")]
    assert len(Window(pinned=[], limit=24, turns=turns).messages()) == 24


def test_text_only_roles_get_a_note_instead_of_the_image() -> None:
    png = b"\x89PNG fake"
    assert content([("goal image", png)], "image")[1]["type"] == "image_url"
    note = content([("goal image", png)], "text")
    assert note == [{"type": "text", "text": "[image not shown: goal image; the model is "
                                             "text-only]"}]


def test_state_summary_lists_object_cells_before_node_sockets() -> None:
    state = {"cells": {'bpy.data.materials["M"].node_tree.nodes["P"].inputs[0].default_value':
                       [0.1, 0.2, 0.3, 1.0],
                       'bpy.data.objects["Box"].location': [0.0, 1.23456789, 0.5]},
             "bindings": {}}
    lines = state_summary(state).splitlines()
    assert lines[0] == 'bpy.data.objects["Box"].location = [0.0, 1.2346, 0.5]'
    assert "node_tree" in lines[1]
