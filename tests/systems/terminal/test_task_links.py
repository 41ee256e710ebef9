"""A task dir's paths may not be links that leave it: refused at load, at `tasks check`
and at `tasks import`, one line naming the link; a run prints no byte of the host file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.systems.terminal.agent.task_factory import make_task
from tests.systems.terminal.harbor_factory import make_tb2_task
from tether.cli import main
from tether.errors import ConfigError
from tether.systems.terminal.agent.actions import FINISH_MARKER
from tether.systems.terminal.convert import classify_task
from tether.systems.terminal.harbor import load_harbor_task

SECRET = "host-secret-7f3a91"


@pytest.fixture
def host_dir(tmp_path: Path) -> Path:
    """A root-only host dir holding a root-only file: what no task may reach."""
    d = tmp_path / "host"
    d.mkdir(mode=0o700)
    (d / "shadow.txt").write_text(SECRET + "\n")
    (d / "shadow.txt").chmod(0o600)
    return d


def _link(path: Path, target: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        for p in sorted(path.rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
        path.rmdir()
    elif path.exists():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


@pytest.mark.parametrize("rel, to_dir", [
    ("environment/files", True), ("environment", True), ("tests", True), ("solution", True),
    ("instruction.md", False), ("task.toml", False), ("environment/setup.sh", False),
    ("tests/test.sh", False), ("solution/solve.sh", False), ("tests/helper.py", False),
])
def test_a_link_out_of_the_task_dir_is_refused_at_load(tmp_path, host_dir, rel, to_dir):
    task = make_task(tmp_path / "tasks", files={"data.txt": "x\n"})
    _link(task / rel, host_dir if to_dir else host_dir / "shadow.txt")
    with pytest.raises(ConfigError) as info:
        load_harbor_task(task)
    text = str(info.value)
    assert f"{rel} is a link that leaves the task dir" in text and "\n" not in text
    assert SECRET not in text


def test_links_inside_the_task_dir_and_inside_environment_files_load(tmp_path):
    task = make_task(tmp_path, files={"data.txt": "x\n"})
    # inside environment/files a link is copied as a link: it resolves in the sandbox
    (task / "environment" / "files" / "passwd").symlink_to("/etc/passwd")
    (task / "environment" / "files" / "outside").symlink_to("/")
    # a link that stays in the task dir is the task's own business
    (task / "tests" / "data.txt").symlink_to("../environment/files/data.txt")
    assert load_harbor_task(task).id == "demo"


def test_tasks_import_refuses_the_task_before_reading_through_the_link(tmp_path, host_dir):
    task = make_tb2_task(tmp_path)
    (host_dir / "Dockerfile").write_text(f"FROM {SECRET}\n")
    _link(task / "environment" / "Dockerfile", host_dir / "Dockerfile")
    c = classify_task(task)
    assert [r.kind for r in c.refusals] == ["outside_task_dir"]
    assert "environment/Dockerfile is a link that leaves the task dir" in c.reason()
    assert c.base == "" and SECRET not in c.reason()
    out = CliRunner().invoke(main, ["tasks", "import", str(task), "--dry-run", "--json"])
    assert SECRET not in out.output
    assert json.loads(out.stdout)[0]["status"] == "refused"


def test_tasks_check_fails_the_task_naming_the_link(tmp_path, host_dir):
    # tasks check gives each task a row (a task that cannot load is a failing row with
    # its message, not the end of the check): the row names the link, the check fails
    task = make_task(tmp_path)
    _link(task / "environment" / "files", host_dir)
    res = CliRunner().invoke(main, ["tasks", "check", str(task), "--json"])
    assert res.exit_code == 1, res.output
    rows = json.loads(res.stdout)
    assert len(rows) == 1 and rows[0]["oracle_reward"] is None
    assert "environment/files is a link that leaves the task dir" in rows[0]["error"]
    assert SECRET not in res.output and "Traceback" not in res.output


def test_a_run_on_a_linked_task_prints_no_byte_of_the_host_dir(tmp_path, host_dir):
    tasks = tmp_path / "tasks"
    task = make_task(tasks, files={"data.txt": "x\n"})
    _link(task / "environment" / "files", host_dir)
    replies = ["```bash\ncat /app/*\n```", f"```bash\necho {FINISH_MARKER}\n```"]
    config = tmp_path / "exp.toml"
    config.write_text(
        f'name = "links"\nsuites = ["harbor:{tasks}"]\nseeds = [0]\n'
        f"[models]\nproposer = 'scripted:{json.dumps(replies)}'\n"
        '[[strategies]]\nname = "agent"\n[run]\nsandbox = "bwrap"\n')
    run_dir = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", str(config), "--out", str(run_dir)])
    assert res.exit_code == 2, res.output
    assert "environment/files is a link that leaves the task dir" in res.output
    assert SECRET not in res.output
    written = [p for p in run_dir.rglob("*") if p.is_file()] if run_dir.exists() else []
    assert not [p for p in written if SECRET.encode() in p.read_bytes()]
    assert os.stat(host_dir).st_mode & 0o777 == 0o700  # nothing touched on the host


def test_a_link_loop_in_a_task_dir_is_refused(tmp_path):
    task = make_task(tmp_path)
    (task / "tests" / "x").symlink_to(task / "tests" / "y")
    (task / "tests" / "y").symlink_to(task / "tests" / "x")
    with pytest.raises(ConfigError, match="tests/x is a link that loops"):
        load_harbor_task(task)
