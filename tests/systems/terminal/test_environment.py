"""TerminalEnvironment and run_verifier in the real bwrap sandbox, on crafted task dirs."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

from tests.systems.terminal.agent.task_factory import make_task
from tether.sandbox import SandboxUnavailable, UnsafeSubprocessSandbox
from tether.sandbox.quota import is_mounted
from tether.systems.terminal.environment import (
    AgentTimeExceeded,
    EnvironmentSetupError,
    TerminalEnvironment,
    cap_output,
    run_verifier,
)
from tether.systems.terminal.harbor import load_harbor_task
from tether.systems.terminal.spec import TerminalSpec


def env_for(task_dir: Path, bwrap, **kw) -> TerminalEnvironment:  # noqa: F811
    return TerminalEnvironment.for_task(load_harbor_task(task_dir), sandbox=bwrap, **kw)


def test_setup_runs_in_app_after_files_are_copied(tmp_path, bwrap):  # noqa: F811
    d = make_task(tmp_path, files={"src/a.txt": "from files\n", "__pycache__/a.pyc": "x"},
                  setup='set -e\npwd > where.txt\ncat src/a.txt > copy.txt\nls /environment\n')
    with env_for(d, bwrap) as env:
        assert (env.app_dir / "where.txt").read_text() == "/app\n"
        assert (env.app_dir / "copy.txt").read_text() == "from files\n"
        assert not (env.app_dir / "__pycache__").exists()  # byte-code of an installed copy
        assert "setup.sh" in env.setup_result.output
        # the agent sees neither the task's environment dir, tests nor solution
        seen = env.execute("ls /environment /tests /solution /logs 2>&1; echo rc=$?")
        assert seen.output.count("No such file or directory") == 4


def test_state_persists_across_commands_and_stderr_is_merged(tmp_path, bwrap):  # noqa: F811
    with env_for(make_task(tmp_path), bwrap) as env:
        assert env.execute("echo one > a.txt && echo scratch > /tmp/s").returncode == 0
        r = env.execute("cat a.txt /tmp/s; echo to-stderr >&2; pwd; exit 3")
        assert r.returncode == 3
        assert r.output == "one\nscratch\nto-stderr\n/app\n"
        assert r.to_json() == {"returncode": 3, "output": r.output}


def test_long_commands_and_nul_bytes(tmp_path, bwrap):  # noqa: F811
    body = "\n".join(f"line {i} " + "x" * 60 for i in range(5000))  # ~330 KB
    with env_for(make_task(tmp_path), bwrap) as env:
        r = env.execute(f"cat > big.txt <<'EOF'\n{body}\nEOF\nwc -l < big.txt; echo oops >&2")
        assert (r.returncode, r.output) == (0, "5000\noops\n")
        assert (env.app_dir / "big.txt").read_text() == body + "\n"
        assert not list((env.root / "tmp").iterdir())  # the script file is gone
        nul = env.execute("echo a\0b")
        assert nul.returncode == 126 and "NUL" in nul.output


def test_each_command_has_its_own_timeout(tmp_path, bwrap):  # noqa: F811
    with env_for(make_task(tmp_path), bwrap) as env:
        # sleep 30 would end well inside the agent's 60 s: only the 1 s limit times it out
        r = env.execute("echo started; sleep 30; echo finished", timeout_s=1)
        assert r.timed_out and r.output == "started\n"
        assert r.to_json()["timed_out"] is True
        assert env.execute("echo next").output == "next\n"  # the session survives it


def test_long_output_is_head_and_tail_with_the_elided_count(tmp_path, bwrap):  # noqa: F811
    with env_for(make_task(tmp_path), bwrap, output_chars=1000) as env:
        r = env.execute("seq 1 20000")
        assert r.output.startswith("1\n2\n") and r.output.endswith("19999\n20000\n")
        total = len("".join(f"{i}\n" for i in range(1, 20001)))
        assert r.output_elided == total - 1000
        assert f"[{total - 1000} characters elided]" in r.output


def test_cap_output_counts_what_the_sandbox_already_dropped():
    assert cap_output("short", 100) == ("short", 0)
    text, elided = cap_output("a" * 50 + "b" * 50, 20)
    assert text == "a" * 10 + "\n... [80 characters elided] ...\n" + "b" * 10 and elided == 80
    sandboxed = "a" * 50 + "\n... [7 characters elided] ...\n" + "b" * 50
    text, elided = cap_output(sandboxed, 20, already_elided=7)
    assert text == "a" * 10 + "\n... [87 characters elided] ...\n" + "b" * 10 and elided == 87
    assert cap_output(sandboxed, 1000, already_elided=7) == (sandboxed, 7)


def test_no_network(tmp_path, bwrap):  # noqa: F811
    with env_for(make_task(tmp_path), bwrap) as env:
        code = "import socket; socket.create_connection(('1.1.1.1', 53), 3)"
        r = env.execute(f'python3 -c "{code}"')
        assert r.returncode != 0
        assert "Network is unreachable" in r.output or "Errno" in r.output


def test_null_and_oracle_rewards_and_the_agent_dir_is_untouched(tmp_path, bwrap):  # noqa: F811
    test = 'echo verifier-was-here > /app/mark\n' + \
        'mkdir -p /logs/verifier; [ -f /app/done.txt ] && echo 1 > /logs/verifier/reward.txt' + \
        ' || echo 0 > /logs/verifier/reward.txt\n'
    with env_for(make_task(tmp_path, test=test), bwrap) as env:
        null = env.verify()
        assert (null.reward, null.error, null.passed) == (0.0, None, False)
        assert env.run_solution().returncode == 0
        oracle = env.verify()
        assert (oracle.reward, oracle.passed) == (1.0, True)
        assert not (env.app_dir / "mark").exists()  # the verifier worked on a copy


def test_tests_are_read_only_for_the_verifier(tmp_path, bwrap):  # noqa: F811
    test = ('mkdir -p /logs/verifier\n'
            'if echo x > /tests/test.sh 2>/dev/null; then echo 1; else echo 0; fi'
            ' > /logs/verifier/reward.txt\n')
    with env_for(make_task(tmp_path, test=test), bwrap) as env:
        assert env.verify().reward == 0.0


@pytest.mark.parametrize("test, kind", [
    ("echo no reward written\n", "no_reward"),
    ("mkdir -p /logs/verifier; echo maybe > /logs/verifier/reward.txt\n", "bad_reward"),
    ("mkdir -p /logs/verifier; echo nan > /logs/verifier/reward.txt\n", "bad_reward"),
    ("sleep 30\n", "timeout"),
    # what the verifier leaves under the reward's name is never followed or waited on
    ("ln -s /etc/hostname /logs/verifier/reward.txt\n", "bad_reward"),
    ("mkfifo /logs/verifier/reward.txt\n", "bad_reward"),
    ("head -c 300 /dev/zero | tr '\\0' 1 > /logs/verifier/reward.txt\n", "bad_reward"),
    ("python3 -c 'print(\"[\" * 100000)' > /logs/verifier/reward.json\n", "bad_reward"),
    ("echo '{\"reward\": [1]}' > /logs/verifier/reward.json\n", "bad_reward"),
])
def test_verifier_failures_are_errors_not_zero(tmp_path, bwrap, test, kind):  # noqa: F811
    toml = '[verifier]\ntimeout_sec = 1.0\n'
    with env_for(make_task(tmp_path, test=test, toml=toml), bwrap) as env:
        result = env.verify()
    assert result.reward is None and result.passed is None
    assert result.error_kind == kind and result.error


def test_reward_json_is_read_when_there_is_no_reward_txt(tmp_path, bwrap):  # noqa: F811
    test = 'mkdir -p /logs/verifier; echo \'{"reward": 0.5}\' > /logs/verifier/reward.json\n'
    with env_for(make_task(tmp_path, test=test), bwrap) as env:
        assert env.verify().reward == 0.5


def test_a_fifo_in_app_does_not_hang_the_verifier(tmp_path, bwrap):  # noqa: F811
    with env_for(make_task(tmp_path), bwrap) as env:
        env.execute("mkfifo pipe && touch done.txt && ln -s /etc/passwd link")
        # a verifier stuck on the fifo would hit its 20 s limit: an error, never reward 1.0
        assert env.verify().reward == 1.0


def test_failed_setup_raises_with_its_output(tmp_path, bwrap):  # noqa: F811
    d = make_task(tmp_path, setup="echo cannot prepare; exit 4\n")
    env = env_for(d, bwrap)
    with pytest.raises(EnvironmentSetupError, match="exit 4.*cannot prepare"):
        env.__enter__()
    assert not env.root.exists()  # a failed start cleans up


def test_agent_timeout_ends_the_attempt(tmp_path, bwrap):  # noqa: F811
    toml = '[agent]\ntimeout_sec = 1.5\n'
    with env_for(make_task(tmp_path, toml=toml), bwrap) as env:
        r = env.execute("sleep 10", timeout_s=60)  # clipped to the agent time left
        assert r.timed_out  # unclipped, sleep 10 would have ended normally
        with pytest.raises(AgentTimeExceeded):
            env.execute("echo too late")


def test_close_removes_the_attempt_dirs(tmp_path, bwrap):  # noqa: F811
    with env_for(make_task(tmp_path), bwrap) as env:
        env.execute("mkdir -p deep/er && chmod 000 deep")
        root = env.root
    assert not root.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a quota needs root")
def test_app_and_tmp_share_a_disk_quota_for_the_attempt(tmp_path, bwrap):  # noqa: F811
    toml = ('[agent]\ntimeout_sec = 60.0\n[verifier]\ntimeout_sec = 20.0\n'
            '[environment]\nbuild_timeout_sec = 20.0\nmemory_mb = 512\ndisk_mb = 64\n')
    with env_for(make_task(tmp_path, toml=toml), bwrap) as env:
        assert env.spec.disk_mb == 64
        root, quota = env.root, env._quota
        assert quota is not None and quota.enforced_mb == 64 and is_mounted(root)
        r = env.execute(": > big; fallocate -n -l 2G big")
        assert r.killed_reason == "disk_quota" and r.to_json()["killed"] == "disk_quota"
        assert env.execute("rm big && echo one > a.txt").returncode == 0
        r = env.execute("for i in $(seq 16); do head -c 8M /dev/zero > /tmp/f$i; done")
        assert r.killed_reason == "disk_quota"  # /tmp is under the same quota
        assert quota.host_bytes() <= 64 * 1024 * 1024
        r = env.execute("rm /tmp/f*; cat a.txt")
        assert (r.returncode, r.output) == (0, "one\n")  # /app persists across commands
        assert env.verify().reward == 0.0  # the verifier runs (under its own quota)
    assert not is_mounted(root) and not root.exists()


def test_the_unsafe_backend_is_refused(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        unsafe = UnsafeSubprocessSandbox()
    spec = TerminalSpec(task_dir=make_task(tmp_path))
    with pytest.raises(SandboxUnavailable):
        TerminalEnvironment(spec, sandbox=unsafe)
    # the verifier reports it as an infrastructure error, never a reward
    app = tmp_path / "app"
    app.mkdir()
    result = run_verifier(spec, app, sandbox=unsafe)
    assert result.reward is None and result.error_kind == "infrastructure"


def test_git_has_an_identity_in_the_sandbox(tmp_path, bwrap):  # noqa: F811
    with env_for(make_task(tmp_path), bwrap) as env:
        r = env.execute("git init -q r && cd r && git commit -q --allow-empty -m x && "
                        "git log --format=%an")
        assert r.returncode == 0, r.output
        assert r.output.strip() == "agent"
        assert os.stat(env.app_dir / "r").st_uid == bwrap.user.uid


def test_an_image_workdir_outside_app_is_writable_for_the_agent_and_the_verifier(
        tmp_path, bwrap):  # noqa: F811
    from dataclasses import replace

    d = make_task(tmp_path, files={"seed.txt": "seed\n"})
    (d / "tests" / "test.sh").write_text(
        "grep -q done /workspace/out.txt && echo 1 > /logs/verifier/reward.txt\n")
    spec = replace(TerminalSpec.from_task(load_harbor_task(d)), workdir="/workspace")
    with TerminalEnvironment(spec, sandbox=bwrap) as env:
        r = env.execute("pwd; cat seed.txt; echo done > /workspace/out.txt; "
                        "touch /app/x 2>/dev/null || echo app-read-only")
        assert r.output.splitlines()[:2] == ["/workspace", "seed"], r.output
        assert (env.app_dir / "out.txt").read_text() == "done\n"
        assert env.verify().reward == 1.0
