"""Every reader is bounded: a FIFO, a device or a file past the limit is refused in one
line naming it (never a hang, never a read until memory runs out), from the library and
from the commands that take such files (`--prices`, a run config, `jsonl:`)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.runs.conftest import write_config, write_suite
from tether.cli.hub import main
from tether.errors import ConfigError
from tether.textio import read_bytes, read_text


@pytest.fixture
def fifo(tmp_path: Path):
    path = tmp_path / "pipe.toml"
    os.mkfifo(path)
    yield path
    # a reader that did open it for writing would be waiting: release it, whatever happened
    def release() -> None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass

    threading.Thread(target=release, daemon=True).start()


def test_a_fifo_a_device_and_a_directory_are_refused(tmp_path, fifo):
    for path, kind in ((fifo, "a FIFO"), (Path("/dev/zero"), "a character device"),
                       (tmp_path, "a directory")):
        with pytest.raises(ConfigError, match=f"cannot read: {kind}, not a regular file"):
            read_text(path, what="price table")


def test_a_file_past_the_limit_is_refused(tmp_path):
    big = tmp_path / "big.jsonl"
    big.write_bytes(b"x" * 1001)
    with pytest.raises(ConfigError, match="larger than 1,000 bytes"):
        read_bytes(big, limit=1000)
    assert read_bytes(big, limit=1001) == b"x" * 1001


@pytest.mark.parametrize("target", ["fifo", "/dev/zero"])
def test_prices_and_configs_from_a_fifo_or_dev_zero_are_one_line(tmp_path, fifo, target):
    path = str(fifo) if target == "fifo" else target
    write_suite(tmp_path / "suite.json")
    cfg = write_config(tmp_path, seeds="[0]")
    for args in (["run", str(cfg), "--out", str(tmp_path / "r"), "--prices", path],
                 ["run", path, "--out", str(tmp_path / "r2")]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2, res.output
        assert "not a regular file" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("args", [
    ["compile", "{fifo}"],
    ["harness", "hash", "{fifo}"],
    ["sandbox", "exec", "--backend", "subprocess", "--file", "{fifo}", "--", "true"],
    ["scene", "trace", "{fifo}", "--backend", "minibpy"],
], ids=["compile-config", "harness", "sandbox-file", "scene-program"])
def test_commands_refuse_a_fifo_in_one_line(fifo, args):
    res = CliRunner().invoke(main, [a.format(fifo=fifo) for a in args])
    assert res.exit_code == 2, res.output
    assert "a FIFO, not a regular file" in res.output and "Traceback" not in res.output
