"""task.toml and instruction.md as a user may get them wrong: one line naming the file."""

from __future__ import annotations

import pytest

from tether.errors import ConfigError
from tether.systems.terminal.harbor import MAX_DISK_MB, load_harbor_task


def task_dir(tmp_path, toml: bytes | str, instruction: bytes = b"Do it.\n"):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test.sh").write_text("echo 1 > /logs/verifier/reward.txt\n")
    (tmp_path / "environment").mkdir()
    (tmp_path / "instruction.md").write_bytes(instruction)
    data = toml if isinstance(toml, bytes) else toml.encode()
    (tmp_path / "task.toml").write_bytes(data)
    return tmp_path


@pytest.mark.parametrize(("toml", "says"), [
    ("[agent]\ntimeout_sec = 1e308\n", "[agent].timeout_sec: expected a positive number of "
     "seconds up to 604800"),
    ("[verifier]\ntimeout_sec = inf\n", "[verifier].timeout_sec"),
    ("[environment]\nbuild_timeout_sec = nan\n", "[environment].build_timeout_sec"),
    ("[environment]\ndisk_mb = 1e308\n", "[environment].disk_mb: expected a positive number "
     "of MB up to 1.04858e+06"),
    ("[environment]\nmemory_mb = -1\n", "[environment].memory_mb"),
    ("[environment]\nmemory = '1e308G'\n", "[environment].memory"),
    (b"[agent]\ntimeout_sec = 60 # \xff\xfe\n", "task.toml: not UTF-8 text"),
])
def test_bad_limits_and_encodings_are_one_line_errors(tmp_path, toml, says):
    with pytest.raises(ConfigError) as info:
        load_harbor_task(task_dir(tmp_path, toml))
    assert says in str(info.value) and "\n" not in str(info.value)


def test_limits_in_range_load_and_large_ones_are_capped(tmp_path):
    task = load_harbor_task(task_dir(tmp_path, "[environment]\ndisk_mb = 500000\n"
                                     "[agent]\ntimeout_sec = 3600\n"))
    assert task.data["disk_mb"] == MAX_DISK_MB and task.data["agent_timeout_s"] == 3600


def test_a_non_utf8_instruction_is_a_one_line_error(tmp_path):
    with pytest.raises(ConfigError, match="instruction.md: not UTF-8 text"):
        load_harbor_task(task_dir(tmp_path, "", instruction=b"\xff\xfe bad\n"))


def test_deeply_nested_image_json_is_a_one_line_error(tmp_path):
    d = task_dir(tmp_path, "")
    (d / "environment" / "image.json").write_text("[" * 200000 + "]" * 200000)
    with pytest.raises(ConfigError, match="image.json: not a valid image reference"):
        load_harbor_task(d)
