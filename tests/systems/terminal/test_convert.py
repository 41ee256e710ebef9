"""Task-level classification: base image -> Debian suite, the verifier rewrite, and the
refusals that only a whole task dir shows (compose, task.toml, missing files)."""

from __future__ import annotations

import pytest

from tests.systems.terminal.harbor_factory import TB2_TEST_SH, make_tb2_task
from tether.systems.terminal.convert import (
    VENV_GUARD,
    VERIFIER_VENV,
    BaseChoice,
    choose_suite,
    classify_task,
    rewrite_verifier,
)
from tether.systems.terminal.dockerfile import Refusal


@pytest.mark.parametrize(("base", "suite", "stands_in"), [
    # the image's own Debian release first: its OpenSSL, libc and packages
    ("python:3.13-slim-bookworm", "bookworm", True),
    ("python:3.13-slim-trixie", "trixie", False),
    ("python:3.13-slim", "trixie", False),
    ("python:3.12-slim-bookworm", "bookworm", True),
    ("python:3.12", "trixie", True),
    ("python:3.11-slim-bookworm", "bookworm", False),
    ("python:3.11", "bookworm", False),
    ("python:3.10-slim-bookworm", "bookworm", True),
    ("debian:bookworm-slim", "bookworm", False),
    ("debian:13.0-slim", "trixie", False),
    ("debian:trixie", "trixie", False),
    ("ubuntu:24.04", "trixie", True),
    ("ubuntu:22.04", "bookworm", True),
])
def test_base_images_map_to_a_suite_and_say_when_it_stands_in(base, suite, stands_in):
    choice = choose_suite(base)
    assert isinstance(choice, BaseChoice) and choice.suite == suite
    assert (choice.note is not None) == stands_in


def test_a_stand_in_python_is_named_in_the_note():
    choice = choose_suite("python:3.13-slim-bookworm")
    assert choice == BaseChoice("bookworm", "python:3.13-slim-bookworm: bookworm's python "
                                "3.11 stands in for python 3.13")


@pytest.mark.parametrize("base", ["alpine:3.20", "rust:1.80", "ubuntu:20.04",
                                  "python:3.11-slim-bullseye",
                                  "debian:bullseye", "ghcr.io/x/y:latest"])
def test_other_bases_are_refused(base):
    choice = choose_suite(base)
    assert isinstance(choice, Refusal) and choice.kind == "base_image"


def test_the_tb2_verifier_runs_offline_from_the_venv_with_its_pins():
    v = rewrite_verifier(TB2_TEST_SH)
    assert not isinstance(v, Refusal)
    assert v.pins == ("pytest==8.4.1", "pytest-json-ctrf==0.3.5")
    assert "curl" not in v.script and "astral" not in v.script and "apt-get" not in v.script
    assert (f"{VERIFIER_VENV}/bin/python -m pytest -p no:cacheprovider --ctrf "
            "/logs/verifier/ctrf.json "
            "/tests/test_outputs.py -rA") in v.script
    assert "echo 1 > /logs/verifier/reward.txt" in v.script
    assert v.script.splitlines()[1] == VENV_GUARD  # right after the shebang


def test_a_verifier_without_uvx_is_kept_and_one_with_other_network_use_refused():
    plain = "#!/bin/bash\ncd /app && python3 check.py && echo 1 > /logs/verifier/reward.txt\n"
    kept = rewrite_verifier(plain)
    assert not isinstance(kept, Refusal) and kept.pins == () and kept.script == plain
    net = rewrite_verifier("#!/bin/bash\npip install -r /tests/req.txt\npytest /tests\n")
    assert isinstance(net, Refusal) and net.kind == "verifier"
    other = rewrite_verifier("uvx ruff check /app\n")
    assert isinstance(other, Refusal) and "ruff" in other.reason


def test_a_copy_only_task_is_convertible(tmp_path):
    c = classify_task(make_tb2_task(tmp_path))
    assert c.convertible, c.reason()
    assert (c.suite, c.base, c.notes) == ("trixie", "python:3.13-slim-trixie", [])
    assert c.verifier is not None and c.verifier.pins[0] == "pytest==8.4.1"


def test_ubuntu_tasks_say_trixie_stands_in(tmp_path):
    c = classify_task(make_tb2_task(tmp_path, dockerfile="FROM ubuntu:24.04\nWORKDIR /app\n"))
    assert c.convertible and c.notes == ["ubuntu:24.04 image: Debian trixie stands in for it"]


@pytest.mark.parametrize(("kwargs", "kind"), [
    ({"compose": "services:\n  main:\n    build: .\n  db:\n    image: postgres\n"},
     "multi_container"),
    ({"compose": "services:\n  main:\n    build: .\n    deploy:\n      resources:\n"
                 "        reservations:\n          devices:\n            - capabilities: [gpu]\n"},
     "gpu"),
    ({"toml": "[environment]\ngpus = 1\n"}, "gpu"),
    ({"files": {}}, "missing_file"),
    ({"test_sh": None}, "no_verifier"),
    ({"test_sh": "#!/bin/bash\nwget -q http://x/y\n"}, "verifier"),
    ({"dockerfile": "FROM python:3.13\nRUN curl -L http://x | sh\n"}, "download"),
    ({"dockerfile": "FROM python:3.13\nCOPY ../secret /x\n"}, "outside_context"),
    ({"dockerfile": "RUN true\n"}, "syntax"),
    ({"dockerfile": "FROM ubuntu:24.04\nWORKDIR /usr/local\n", "files": {}}, "workdir"),
    ({"dockerfile": "FROM ubuntu:24.04\nWORKDIR /opt\n", "files": {}}, "workdir"),
    ({"toml": b"[agent]\ntimeout_sec = 60 # \xff\xfe\n"}, "syntax"),
])
def test_task_level_refusals(tmp_path, kwargs, kind):
    c = classify_task(make_tb2_task(tmp_path, **kwargs))
    assert not c.convertible
    assert kind in [r.kind for r in c.refusals], c.reason()


def test_one_service_compose_is_fine_and_heavy_is_allowed_on_request(tmp_path):
    compose = "services:\n  main:\n    build: .\n    environment:\n      - A=1\n"
    heavy = "FROM python:3.13\nRUN pip install torch==2.4.0\n"
    assert classify_task(make_tb2_task(tmp_path, "a", compose=compose)).convertible
    task = make_tb2_task(tmp_path, "b", dockerfile=heavy, files={})
    assert [r.kind for r in classify_task(task).refusals] == ["heavy"]
    assert classify_task(task, allow_heavy=True).convertible


def test_heavy_verifier_pins_are_refused_like_heavy_dockerfile_installs(tmp_path):
    # TB2's torch-pipeline-parallelism: a bare ubuntu Dockerfile, but the verifier pins
    # torch, and verifier pins are installed into the image at build time
    test_sh = TB2_TEST_SH.replace("-w pytest==8.4.1", "-w pytest==8.4.1 -w torch==2.7.0")
    assert "torch==2.7.0" in test_sh
    task = make_tb2_task(tmp_path, dockerfile="FROM ubuntu:24.04\nWORKDIR /app\n",
                         test_sh=test_sh, files={})
    c = classify_task(task)
    assert [r.kind for r in c.refusals] == ["heavy"]
    assert "torch==2.7.0" in c.reason() and "verifier" in c.reason()
    allowed = classify_task(task, allow_heavy=True)
    assert allowed.convertible and "torch==2.7.0" in allowed.verifier.pins


def test_a_task_without_an_oracle_is_noted_as_unable_to_pass_its_gates(tmp_path):
    task = make_tb2_task(tmp_path)
    assert not any("solve.sh" in n for n in classify_task(task).notes)
    (task / "solution" / "solve.sh").unlink()
    c = classify_task(task)
    assert c.convertible
    assert "no solution/solve.sh: the oracle gate cannot pass" in c.notes


def test_a_script_the_build_runs_is_read_for_downloads(tmp_path):
    dockerfile = ("FROM python:3.13-slim-bookworm\nWORKDIR /app\nCOPY setup.sh ./\n"
                  "RUN bash /app/setup.sh && rm setup.sh\n")
    cloning = make_tb2_task(tmp_path, "clone", dockerfile=dockerfile, files={
        "setup.sh": "git config --global user.name x\ngit clone https://github.com/a/b\n"})
    c = classify_task(cloning)
    assert [r.reason for r in c.refusals] == ["downloads at build time (git) in setup.sh"]
    local = make_tb2_task(tmp_path, "local", dockerfile=dockerfile, files={
        "setup.sh": "git init repo  # a local repo\necho hi > a.txt\n"})
    assert classify_task(local).convertible


def test_an_oracle_that_installs_at_solve_time_is_noted_not_refused(tmp_path):
    task = make_tb2_task(tmp_path, solve=(
        "apt-get install -y python3-pip\npip install biopython==1.85\n"
        "curl -s https://example.org/x > x\necho 42 > /app/answer.txt\n"))
    c = classify_task(task)
    assert c.convertible
    assert c.notes == ["solve.sh installs or downloads at solve time (apt, curl, pip): "
                       "offline, its oracle gate may fail (--registry: the package "
                       "registries)"]
    assert classify_task(make_tb2_task(tmp_path, "quiet")).notes == []


PIP_TEST_SH = """#!/bin/bash
apt-get update && apt-get install -y python3-pip
pip install pytest==8.4.1 pytest-json-ctrf==0.3.5
pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; fi
"""


def test_pip_installed_verifier_pins_are_built_into_the_image(tmp_path):
    v = rewrite_verifier(PIP_TEST_SH)
    assert not isinstance(v, Refusal)
    assert v.pins == ("pytest==8.4.1", "pytest-json-ctrf==0.3.5") and v.system_site
    assert "pip install" not in v.script
    assert (f"{VERIFIER_VENV}/bin/python -m pytest -p no:cacheprovider --ctrf "
            "/logs/verifier/ctrf.json /tests/test_outputs.py -rA") in v.script
    c = classify_task(make_tb2_task(tmp_path, test_sh=PIP_TEST_SH))
    assert c.convertible, c.reason()
    from tether.systems.terminal.images import image_spec

    spec = image_spec(c)
    assert spec.verifier_pins == v.pins and spec.verifier_system_site
    as_module = rewrite_verifier("python3 -m pip install -q numpy==2.1.0\n"
                                 "python -m pytest /tests\n")
    assert not isinstance(as_module, Refusal) and as_module.pins == ("numpy==2.1.0", "pytest")
    url = rewrite_verifier("pip install git+https://github.com/a/b\npytest /tests\n")
    assert isinstance(url, Refusal) and "git+https" in url.reason


def test_a_workdir_outside_app_is_the_attempts_writable_dir(tmp_path):
    from tether.systems.terminal.spec import TerminalSpec, writable_dir

    task = make_tb2_task(tmp_path, dockerfile="FROM ubuntu:24.04\nWORKDIR /workspace\n",
                         files={})
    c = classify_task(task)
    assert c.convertible, c.reason()
    assert "WORKDIR /workspace: the attempt's writable dir is /workspace, not /app" in c.notes
    assert writable_dir("/workspace") == "/workspace" and writable_dir("/app/src") == "/app"
    assert writable_dir("/") == "/app"
    assert TerminalSpec(task_dir=task, workdir="/workspace").writable_dir == "/workspace"
