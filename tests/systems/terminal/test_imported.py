"""Imported tasks run on their image, and only after their gates passed in it: a run
refuses (or, with harbor-gated:, skips and reports) tasks whose gates have not passed,
and a changed environment invalidates the cached result."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.sandbox.rootfs_factory import make_rootfs
from tests.systems.terminal.harbor_factory import make_tb2_task
from tether.suites.registry import load_suite
from tether.systems.terminal.cli import tasks
from tether.systems.terminal.dockerfile import Refusal
from tether.systems.terminal.environment import TerminalEnvironment
from tether.systems.terminal.harbor import UngatedTask, load_harbor_dir, load_harbor_task
from tether.systems.terminal.imported import ImageRef, gate_status, write_imported_task

# bash builtins and cat only: the test image has no python
VERIFIER = ('if [ "$(cat /app/answer.txt 2>/dev/null)" = "$EXPECT" ]; then '
            'echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n')


@pytest.fixture()
def where() -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="tether-imported-test-"))
    d.chmod(0o755)  # the sandbox user must reach the image
    yield d
    shutil.rmtree(d, ignore_errors=True)


def imported(where: Path, name: str = "demo", solve: str = "echo 42 > /app/answer.txt\n",
             workdir: str = "/app") -> Path:
    src = make_tb2_task(where / "src", name, solve=solve)
    image = where / "image"
    if not image.exists():
        make_rootfs(image / "rootfs")
        (image / "app").mkdir()
        (image / "app" / "data.txt").write_text("from the image\n")
    ref = ImageRef(key="k1", image_dir=image, suite="trixie", base="ubuntu:24.04",
                   env={"EXPECT": "42", "GREETING": "hi"}, workdir=workdir,
                   notes=("ubuntu:24.04 image: Debian trixie stands in for it",))
    return write_imported_task(src, where / "out", ref, "#!/bin/bash\n" + VERIFIER,
                               image / "app")


def check(*dirs: Path):
    return CliRunner().invoke(tasks, ["check", "--json", *map(str, dirs)])


def test_an_attempt_runs_on_the_image_with_its_env_and_files(where, bwrap):
    task = load_harbor_task(imported(where, workdir="/app/sub"))
    with TerminalEnvironment.for_task(task, sandbox=bwrap) as env:
        r = env.execute("mkdir -p /app/sub; cat /etc/os-release /app/data.txt; "
                        "echo $GREETING; python3 -V")
        assert r.output == ("ID=tether-test-image\nfrom the image\nhi\n"
                            "/bin/bash: line 3: python3: command not found\n")  # not the host's
        assert env.execute("pwd").output == "/app/sub\n"  # the image's WORKDIR


def test_a_run_refuses_ungated_tasks_and_gated_ones_load(where, bwrap):
    out = imported(where).parent
    with pytest.raises(UngatedTask, match="gates not run"):
        load_harbor_dir(out)
    result = check(out / "demo")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["oracle_reward"] == 1.0
    assert gate_status(out / "demo") == (True, "")
    (task,) = load_harbor_dir(out)
    assert task.data["rootfs"] == str(where / "image" / "rootfs")
    assert [t.id for t in load_suite(f"harbor:{out}")] == ["demo"]


def test_a_changed_environment_needs_the_gates_again(where, bwrap):
    out = imported(where).parent
    assert check(out / "demo").exit_code == 0
    (out / "demo" / "tests" / "test_outputs.py").write_text("# edited\n")
    with pytest.raises(UngatedTask, match="another environment"):
        load_harbor_dir(out)


def test_failed_gates_refuse_and_harbor_gated_skips_and_reports(where, bwrap, caplog):
    out = imported(where, "good").parent
    imported(where, "lazy", solve="true\n")  # the oracle cannot pass: a broken task
    result = check(out / "good", out / "lazy")
    assert result.exit_code == 1
    rows = {r["task"]: r for r in json.loads(result.output)}
    assert rows["lazy"]["oracle_reward"] == 0.0 and rows["good"]["oracle_reward"] == 1.0
    with pytest.raises(UngatedTask, match="lazy: refused: gates failed"):
        load_harbor_dir(out)
    loaded = load_suite(f"harbor-gated:{out}")
    assert [t.id for t in loaded] == ["good"]
    assert "skipped lazy: refused: gates failed" in caplog.text
    assert "1 task(s) skipped" in caplog.text


def test_a_missing_image_is_an_infrastructure_error_not_a_wrong_answer(where, bwrap):
    task_dir = imported(where)
    shutil.rmtree(where / "image" / "rootfs")
    result = check(task_dir)
    row = json.loads(result.output)[0]
    assert result.exit_code == 1
    assert row["oracle_reward"] is None and row["null_reward"] is None
    assert "root filesystem" in row["error"] and "is missing" in row["error"]
    assert gate_status(task_dir)[0] is False


def test_a_missing_verifier_venv_is_an_error_never_reward_0(where, bwrap):
    from tests.systems.terminal.harbor_factory import TB2_TEST_SH
    from tether.systems.terminal.convert import rewrite_verifier

    task_dir = imported(where)
    verifier = rewrite_verifier(TB2_TEST_SH)
    assert not isinstance(verifier, Refusal)
    (task_dir / "tests" / "test.sh").write_text(verifier.script)  # the image has no venv
    row = json.loads(check(task_dir).stdout)[0]
    assert row["null_reward"] is None and row["oracle_reward"] is None
    assert "verifier wrote no /logs/verifier/reward.txt" in row["error"]
