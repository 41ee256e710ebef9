"""`tether run` through the CLI: exit codes, JSON summary, resume, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main

from .conftest import write_config, write_suite


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def one_line_error(result, *needles: str) -> None:
    """The CLI convention: exit 2, one `error:` line (plus a hint), never a traceback."""
    out = result.output
    assert result.exit_code == 2, out
    assert "Traceback" not in out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, out
    for n in needles:
        assert n in errors[0], out


def test_run_json_summary_and_exit_0(experiment: Path, tmp_path: Path) -> None:
    res = invoke("run", str(experiment), "--out", str(tmp_path / "run"), "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["status"] == "completed" and summary["planned"] == 6
    assert summary["by_status"] == {"ok": 6}
    (arm,) = summary["arms"]
    assert arm["arm"] == "single_shot" and arm["passed"] == 4 and arm["trials"] == 6
    assert arm["pass_rate"] == pytest.approx(4 / 6)


def test_table_output_names_the_run_dir_and_report(experiment: Path, tmp_path: Path) -> None:
    res = invoke("run", str(experiment), "--out", str(tmp_path / "run"))
    assert res.exit_code == 0, res.output
    assert "single_shot" in res.stdout and "66.7%" in res.stdout
    assert f"tether report {tmp_path / 'run'}" in res.stdout


def test_resume_skips_finished_trials_and_retries_errors(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json", tasks=[("ok", "alpha", "alpha"),
                                                ("down", "model-down", "x")])
    cfg = write_config(tmp_path)
    out = str(tmp_path / "run")
    first = invoke("run", str(cfg), "--out", out, "--json")
    assert first.exit_code == 1  # two trials ended in error (the scripted backend is down)
    assert json.loads(first.stdout)["by_status"] == {"ok": 2, "error": 2}
    again = json.loads(invoke("run", "--resume", out, "--json").stdout)
    assert again["ran_now"] == 0 and again["skipped"] == 4 and again["committed"] == 4
    retried = invoke("run", "--resume", out, "--retry-errors", "--json")
    assert retried.exit_code == 1
    body = json.loads(retried.stdout)
    assert body["ran_now"] == 2 and body["committed"] == 4  # replaced, never duplicated


def test_a_run_with_error_trials_says_what_they_ended_with(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json", tasks=[("ok", "alpha", "alpha"),
                                                ("down", "model-down", "x")])
    res = invoke("run", str(write_config(tmp_path)), "--out", str(tmp_path / "run"))
    assert res.exit_code == 1
    lines = res.stderr.splitlines()
    said = [line for line in lines if line.startswith("  2 x ModelError: ")]
    assert len(said) == 1 and "scripted backend is down" in said[0], res.stderr
    assert lines.index(said[0]) == 1 + next(
        i for i, line in enumerate(lines) if "2 trial(s) ended in error" in line)


def test_error_lines_name_the_most_frequent_errors_and_count_the_rest() -> None:
    from types import SimpleNamespace

    from tether.cli.run import error_lines
    from tether.models.errors import TLS_HINT

    def rec(kind: str | None, message: str = "", status: str = "error") -> SimpleNamespace:
        return SimpleNamespace(status=status, error_kind=kind, error_message=message)

    records = ([rec("CertificateRefused", "m@https://h: the TLS certificate was refused")] * 3
               + [rec("ServerError", "m: 500\ntraceback follows")] * 2
               + [rec("RateLimited", "m: 429"), rec("Timeout", "m: slow"), rec(None, "", "ok"),
                  rec("skipped:EndpointUnreachable", "not started: h could not be reached")])
    assert error_lines(records) == [  # type: ignore[arg-type]
        "  3 x CertificateRefused: m@https://h: the TLS certificate was refused",
        f"    hint: {TLS_HINT}",
        "  2 x ServerError: m: 500",
        "  1 x RateLimited: m: 429",
        "  and 1 more (1 other errors): tether report shows every trial",
    ]


def test_default_out_dir_and_resume_with_same_config(experiment: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = invoke("run", str(experiment), "--json", "--limit", "1")
    assert res.exit_code == 0
    run_dir = Path(json.loads(res.stdout)["run_dir"])
    assert run_dir.parent.name == "runs" and run_dir.name.startswith("exp-")
    assert json.loads(res.stdout)["planned"] == 2
    same = invoke("run", str(experiment), "--limit", "1", "--resume", str(run_dir), "--json")
    assert json.loads(same.stdout)["ran_now"] == 0
    one_line_error(invoke("run", str(experiment), "--resume", str(run_dir)),
                   "is not the experiment")
    one_line_error(invoke("run", "--resume", str(run_dir), "--limit", "3"), "--limit")


def test_errors_are_one_line(experiment: Path, tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    one_line_error(invoke("run", str(tmp_path / "nope.toml")), "config file not found")
    bad = tmp_path / "bad.toml"
    bad.write_text("suites = [code\n")
    one_line_error(invoke("run", str(bad)), "invalid TOML")
    cfg = write_config(tmp_path, strategies='[[strategies]]\nname = "nope"\n', name="s.toml")
    one_line_error(invoke("run", str(cfg)), "unknown strategy 'nope'")
    write_suite(tmp_path / "bad_metric.json", metric="no_such_instrument")
    cfg = write_config(tmp_path, suite="bad_metric.json", name="m.toml")
    one_line_error(invoke("run", str(cfg)), "unknown instrument 'no_such_instrument'")
    cfg = write_config(tmp_path, models="nonsense-model", name="n.toml")
    one_line_error(invoke("run", str(cfg)), "models[0].proposer")
    one_line_error(invoke("run", "--resume", str(tmp_path / "missing")), "not a run directory")
    one_line_error(invoke("run"), "no experiment given")
    one_line_error(invoke("run", str(experiment), "--retry-errors"), "--retry-errors")
    one_line_error(invoke("run", "--resume", "x", "--out", "y"), "--out and --resume")
    invoke("run", str(experiment), "--out", str(tmp_path / "r"), "--json")
    one_line_error(invoke("run", str(experiment), "--out", str(tmp_path / "r")),
                   "already holds a run")
    assert not (tmp_path / "runs").exists()  # no failed command left a run directory behind


def test_ray_executor_without_ray_is_a_usage_error(experiment: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    res = invoke("run", str(experiment), "--out", str(tmp_path / "r"), "--executor", "ray")
    one_line_error(res, "needs Ray")
    assert "pip install" in res.output and not (tmp_path / "r").exists()


def test_cache_flag_uses_a_cache_file_in_the_run_dir(experiment: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = invoke("run", str(experiment), "--out", str(out), "--cache", "readwrite", "--json")
    assert res.exit_code == 0
    assert (out / "cache.sqlite").is_file()
    again = invoke("run", "--resume", str(out), "--retry-errors", "--cache", "read", "--json")
    assert json.loads(again.stdout)["ran_now"] == 0
