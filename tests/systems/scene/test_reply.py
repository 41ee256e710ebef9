"""What the host accepts from the scene worker: the reply schema and outputs read by name."""

from __future__ import annotations

import json
import os

import pytest

from tether.systems.scene.reply import (
    UnsafeOutput,
    parse_died,
    parse_reply,
    read_output,
    write_input,
)

GOOD = {"ok": True, "error": None, "events": [], "unresolved": [], "truncated": False,
        "state": {"cells": {}, "bindings": [], "structure": {}}, "overrides": [],
        "contaminated": [], "rendered": False, "saved": False, "blocked": []}


def test_a_well_formed_reply_is_accepted() -> None:
    reply, why = parse_reply(json.dumps(GOOD))
    assert reply is not None and why == "" and reply.state is not None


@pytest.mark.parametrize("change", [
    {"render": "/etc/shadow"},  # a path where none belongs: unknown key
    {"saved": "/abs/host/file"},  # a path where a flag belongs: not coerced
    {"rendered": "yes"},
    {"state": {"cells": {}}},  # incomplete state
    {"contaminated": "nothing"},
])
def test_a_reply_off_the_schema_is_refused(change) -> None:
    reply, why = parse_reply(json.dumps({**GOOD, **change}))
    assert reply is None and why.startswith("malformed reply")


def test_deep_nesting_and_non_text_are_refused_without_recursing() -> None:
    deep = json.dumps(GOOD)[:-1] + ', "x": ' + "[" * 200_000 + "]" * 200_000 + "}"
    assert parse_reply(deep)[0] is None
    assert parse_reply({"ok": True})[0] is None


def test_outputs_are_read_only_as_plain_files_of_their_own(tmp_path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    secret = tmp_path / "secret"
    secret.write_bytes(b"s")
    (work / "plain").write_bytes(b"png")
    assert read_output(work, "plain") == b"png" and not (work / "plain").exists()
    assert read_output(work, "plain") is None  # absent
    os.symlink(secret, work / "link")
    os.link(secret, work / "hard")
    os.mkfifo(work / "fifo")
    for name in ("link", "hard", "fifo"):
        with pytest.raises(UnsafeOutput):
            read_output(work, name)
    for name in ("../secret", str(secret), "", "..", "a/b"):
        with pytest.raises(UnsafeOutput):
            read_output(work, name)
    assert secret.read_bytes() == b"s"
    with pytest.raises(UnsafeOutput):
        (work / "big").write_bytes(b"x" * 10)
        read_output(work, "big", max_bytes=4)


def test_inputs_replace_a_link_instead_of_writing_through_it(tmp_path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    secret = tmp_path / "secret"
    secret.write_bytes(b"s")
    os.symlink(secret, work / "in.blend")
    write_input(work, "in.blend", b"scene")
    assert secret.read_bytes() == b"s" and (work / "in.blend").read_bytes() == b"scene"
    assert not (work / "in.blend").is_symlink()


@pytest.mark.parametrize("value", [
    {"died": "signal", "code": "x" * 100_000},  # a flood where a number belongs
    {"died": "signal", "code": 9, "path": "/etc/shadow"},
    {"died": "poison", "code": 9},
    {"died": "exit", "code": 10**9},
])
def test_a_forged_death_notice_is_refused(value) -> None:
    died, why = parse_died(value)
    assert died is None and why.startswith("malformed death notice") and len(why) <= 500


def test_the_template_s_death_notices_are_accepted() -> None:
    assert parse_died({"died": "signal", "code": 9})[0] is not None
    assert parse_died({"died": "exit", "code": 1})[0] is not None
