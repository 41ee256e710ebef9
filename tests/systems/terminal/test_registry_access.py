"""The opt-in registry access of an attempt: off by default (no network at all), on it
reaches the package mirrors through the logging proxy and nothing else, and both ways the
attempt's commands stay contained (root of their namespace, no capabilities, no host)."""

from __future__ import annotations

import os
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.systems.terminal.agent.task_factory import make_task
from tether.systems.terminal.environment import TerminalEnvironment
from tether.systems.terminal.harbor import load_harbor_task

#: a python3 one-liner: fetch URL through whatever proxy the environment names
FETCH = ("python3 -c \"import sys, urllib.request as u\n"
         "try:\n    print(u.urlopen(sys.argv[1], timeout=20).status)\n"
         "except Exception as e:\n    print('FAILED', type(e).__name__, e)\" ")


def reachable(host: str, port: int = 443) -> bool:
    try:
        socket.create_connection((host, port), timeout=5).close()
        return True
    except OSError:
        return False


@pytest.fixture()
def loopback_server() -> Iterator[tuple[int, list[object]]]:
    """A TCP server on the host's 127.0.0.1 that counts the connections it accepts."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    srv.settimeout(0.2)
    accepted: list[object] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            accepted.append(conn)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield srv.getsockname()[1], accepted
    stop.set()
    thread.join()
    srv.close()


@pytest.fixture()
def task(tmp_path: Path):
    return load_harbor_task(make_task(tmp_path))


@pytest.mark.parametrize("registry", [False, True], ids=["registry-off", "registry-on"])
def test_containment_holds_with_the_option_on_and_off(task, bwrap, registry, loopback_server,
                                                      monkeypatch):
    port, accepted = loopback_server
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-leak")
    token = f"tether-reg-{os.getpid()}-{registry}"
    with TerminalEnvironment.for_task(task, sandbox=bwrap, registry_access=registry) as env:
        who = env.execute("id -u; grep CapEff /proc/self/status").output.split("\n")
        assert who[0] == "0" and who[1].split()[1] == "0000000000000000"
        wrote = env.execute(f"for p in /usr/{token} /etc/{token} /{token}; do "
                            'touch "$p" 2>/dev/null && echo "WROTE $p"; done; env')
        assert "WROTE" not in wrote.output and "sk-test-leak" not in wrote.output
        # the host's loopback: no route of its own, and the proxy refuses it
        direct = env.execute(f"python3 -c \"import socket; socket.create_connection("
                             f"('127.0.0.1', {port}), timeout=2)\"; echo rc=$?")
        assert "rc=1" in direct.output
        via = env.execute(FETCH + f"http://127.0.0.1:{port}/")
        via_other = env.execute(FETCH + "https://example.org/")
        assert "FAILED" in via.output and "FAILED" in via_other.output
        record = env.record()
    assert accepted == []
    for p in (f"/usr/{token}", f"/etc/{token}", f"/{token}"):
        assert not Path(p).exists()
    if registry:
        # every request is logged, refused ones too
        assert {(r["host"], r["allowed"]) for r in record["registry"]["requests"]} >= {
            ("example.org", False)}
        assert record["registry"]["refused"] >= 1
    else:
        assert record["registry"] == {"enabled": False}
        assert "HTTPS_PROXY" not in wrote.output


@pytest.mark.skipif(not reachable("pypi.org"), reason="this host cannot reach pypi.org")
def test_a_mirror_is_reached_only_with_the_option(task, bwrap):
    url = "https://pypi.org/simple/six/"
    with TerminalEnvironment.for_task(task, sandbox=bwrap) as off:
        assert "FAILED" in off.execute(FETCH + url).output
    with TerminalEnvironment.for_task(task, sandbox=bwrap, registry_access=True) as on:
        got = on.execute(FETCH + url)
        assert got.output.strip() == "200", got.output
        requests = on.record()["registry"]["requests"]
    assert requests == [{"host": "pypi.org", "port": 443, "method": "CONNECT",
                         "allowed": True}]


def test_the_option_is_recorded_on_the_trial(tmp_path):
    """A strategy parameter, off by default; the trial keeps what its environment was."""
    from tests.systems.terminal.test_strategies import SUBMIT, bash
    from tether.core.trial import TrialSpec
    from tether.runs.trial_runner import run_trial
    from tether.testing.scripted_models import ScriptedModel

    task = load_harbor_task(make_task(tmp_path))
    for params, enabled in (({}, False), ({"registry_access": True}, True)):
        spec = TrialSpec(suite="terminal", task_id=task.id, strategy="agent",
                         strategy_params=params, models={"proposer": "gen"})
        model = ScriptedModel([bash("touch /app/done.txt"), SUBMIT])
        record, _ = run_trial(spec, task, model_factory=lambda _s, m=model: m)
        assert record.passed is True, record.error_message
        environment = record.extra["environment"]
        assert environment["as_root"] is True and environment["writable_system"] is False
        assert environment["registry"]["enabled"] is enabled
    shutil.rmtree(tmp_path, ignore_errors=True)


# --- the oracle gate of an imported task whose solution installs with apt-get ---

IMAGE_ROOT = Path(os.environ.get("TETHER_TEST_IMAGE_DIR", "/var/tmp/tether-images-test"))
APT_SOLVE = ("set -e\napt-get update -q\napt-get install -y -q --no-install-recommends tree\n"
             "tree --version > /app/answer.txt\n")
APT_VERIFIER = ("#!/bin/bash\nif command -v tree >/dev/null && grep -q tree /app/answer.txt; "
                "then echo 1 > /logs/verifier/reward.txt; else echo 0 > "
                "/logs/verifier/reward.txt; fi\n")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mmdebstrap") is None, reason="mmdebstrap not installed")
@pytest.mark.skipif(os.geteuid() != 0, reason="image builds and overlay mounts run as root")
@pytest.mark.skipif(not reachable("deb.debian.org", 80), reason="no route to deb.debian.org")
def test_an_apt_get_solution_passes_its_gate_only_with_the_option(tmp_path):
    import tempfile

    from tests.systems.terminal.harbor_factory import make_tb2_task
    from tether.systems.terminal.dockerfile import Step
    from tether.systems.terminal.gates import check_task
    from tether.systems.terminal.images import ImageBuilder, ImageSpec, context_hash
    from tether.systems.terminal.imported import ImageRef, write_imported_task

    # the recipe of test_image_build's apt test: one image in the cache serves both
    context = tmp_path / "ctx"
    context.mkdir()
    steps = (Step("run", ("apt-get update -q && apt-get install -y -q --no-install-recommends"
                          " jq && grep CapEff /proc/self/status > /caps.txt",)),)
    spec = ImageSpec(suite="bookworm", packages=("bash", "python3", "ca-certificates"),
                     steps=steps, context_hash=context_hash(context, steps), verifier_pins=())
    image = ImageBuilder(IMAGE_ROOT).build(spec, context)
    where = Path(tempfile.mkdtemp(prefix="tether-registry-gate-"))
    where.chmod(0o755)
    try:
        src = make_tb2_task(where / "src", "apt-solution", solve=APT_SOLVE)
        (where / "app").mkdir()
        ref = ImageRef(key=image.key, image_dir=image.rootfs.parent, suite="bookworm",
                       base="debian:12", env={}, workdir="/app")
        task = load_harbor_task(write_imported_task(src, where / "out", ref, APT_VERIFIER,
                                                    where / "app"))
        off = check_task(task)
        assert off.oracle_reward == 0.0 and not off.ok
        assert "solve.sh failed" in (off.error or "") and "are you root" not in off.error
        on = check_task(task, registry_access=True)
        assert on.ok, on.error
        assert on.registry_access and on.registry_requests
        assert all(r["allowed"] and r["host"].endswith("debian.org")
                   for r in on.registry_requests)
    finally:
        shutil.rmtree(where, ignore_errors=True)
