"""A store that cannot be read or written is one line, exit 2, never a traceback: a trial
row that is not a record, a damaged resolved config (report, export, resume), and a
full disk, which says "disk full" and leaves the run resumable."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.sandbox import DiskQuota

from .conftest import SCRIPTED, write_config, write_suite

COMMANDS = (("report", "{run}", "--json"), ("export", "{run}", "--out", "{tmp}/x.jsonl"),
            ("run", "--resume", "{run}"))


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("faults")
    write_suite(tmp / "suite.json")
    cfg = write_config(tmp, seeds="[0]")
    res = CliRunner().invoke(main, ["run", str(cfg), "--out", str(tmp / "run")])
    assert res.exit_code == 0, res.output
    return tmp / "run"


def one_line(res, *needles: str) -> None:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    errors = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, res.output
    for n in needles:
        assert n in errors[0], res.output


def damaged_copy(finished: Path, tmp_path: Path, sql: str, config: str | None = None) -> Path:
    import shutil

    run = Path(shutil.copytree(finished, tmp_path / "run"))
    db = sqlite3.connect(run / "run.sqlite")
    db.execute(sql)
    db.commit()
    db.close()
    if config is not None:
        (run / "config.resolved.json").write_text(config)
    return run


@pytest.mark.parametrize("command", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_a_trial_row_that_is_not_a_record_is_one_line(finished, tmp_path, command):
    run = damaged_copy(finished, tmp_path, "UPDATE trials SET record = '{\"trial_id\": 5}'")
    res = CliRunner().invoke(main, [a.format(run=run, tmp=tmp_path) for a in command])
    one_line(res, "is not a valid trial record", "trial_id")


@pytest.mark.parametrize("command", [c for c in COMMANDS if c[0] != "export"],
                         ids=["report", "resume"])
@pytest.mark.parametrize("sql, config, says", [
    ("DELETE FROM meta WHERE key = 'config'", "[1,", "config.resolved.json: not valid JSON"),
    ("UPDATE meta SET value = '{bad' WHERE key = 'config'", None,
     "its 'config' entry is not JSON"),
], ids=["file", "meta"])
def test_a_damaged_resolved_config_is_one_line(finished, tmp_path, command, sql, config,
                                               says):
    run = damaged_copy(finished, tmp_path, sql, config)
    res = CliRunner().invoke(main, [a.format(run=run, tmp=tmp_path) for a in command])
    one_line(res, says)


@pytest.mark.skipif(os.geteuid() != 0, reason="a small filesystem to fill is a mount: root")
def test_a_full_disk_says_so_and_the_run_resumes(tmp_path):
    mnt = tmp_path / "small"
    quota = DiskQuota(mnt, 16)
    try:
        write_suite(mnt / "suite.json", tasks=[(f"t{i}", "a" * 2000, "a") for i in range(60)])
        cfg = write_config(mnt, models=SCRIPTED, seeds="[0]", concurrency=1)
        st = os.statvfs(mnt)
        with open(mnt / "filler", "wb") as fh:  # leave about 900 KB: a few commits fit
            fh.write(b"\0" * (st.f_bavail * st.f_frsize - 900_000))
        res = CliRunner().invoke(main, ["run", str(cfg), "--out", str(mnt / "run")])
        one_line(res, "disk full: no room in", "to commit trial")
        assert "cannot rollback" not in res.output and "damaged" not in res.output
        (mnt / "filler").unlink()
        again = CliRunner().invoke(main, ["run", "--resume", str(mnt / "run"), "--json"])
        assert again.exit_code == 0, again.output
        summary = json.loads(again.stdout)
        assert summary["status"] == "completed" and summary["by_status"] == {"ok": 60}
    finally:
        quota.close()
