"""The Dockerfile reader: the subset it builds, and each reason it refuses."""

from __future__ import annotations

import pytest

from tether.systems.terminal.dockerfile import (
    DockerfileError,
    Step,
    classify_run,
    heavy_packages,
    logical_lines,
    parse_dockerfile,
)


def kinds(text: str) -> list[str]:
    return [r.kind for r in parse_dockerfile(text).refusals]


def test_continuations_comments_and_keywords_are_joined_per_instruction():
    lines = logical_lines("# c\nFROM debian:bookworm\n\nrun apt-get update && \\\n"
                          "   # inner comment\n    apt-get install -y git\n")
    assert [(i.keyword, i.args, i.line) for i in lines] == [
        ("FROM", "debian:bookworm", 2),
        ("RUN", "apt-get update && apt-get install -y git", 4)]


def test_the_subset_becomes_ordered_steps_with_env_workdir_and_args_applied():
    recipe = parse_dockerfile(
        "ARG VER=1.16.0\nFROM python:3.13-slim-bookworm\nENV A=1 B=\"two words\"\n"
        "ENV OLD form value\nENV PATH=/opt/bin:$PATH\nWORKDIR /app\nWORKDIR sub\n"
        "COPY a.txt b/ ./\nADD c.txt /etc/c.txt\n"
        "RUN apt-get update && apt-get install -y --no-install-recommends git jq\n"
        "RUN pip install six==${VER} && git init repo && git config --global x.y z\n"
        'RUN ["python3", "-c", "print(1)"]\nCMD ["sleep", "infinity"]\nUSER root\n')
    assert recipe.refusals == []
    assert recipe.base == "python:3.13-slim-bookworm"
    assert recipe.env == {"A": "1", "B": "two words", "OLD": "form value",
                          "PATH": "/opt/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                                  "/usr/bin:/sbin:/bin"}
    assert recipe.workdir == "/app/sub"
    assert recipe.apt == ["git", "jq"] and recipe.pip == ["six==1.16.0"]
    assert Step("copy", ("a.txt", "b/", "/app/sub/")) in recipe.steps
    assert Step("copy", ("c.txt", "/etc/c.txt")) in recipe.steps
    assert Step("run", ("python3 -c 'print(1)'",)) in recipe.steps
    assert [s.kind for s in recipe.steps].count("run") == 3


@pytest.mark.parametrize("run", [
    "curl -fsSL https://example.org/x.sh | bash",
    "wget -q https://example.org/x.tgz",
    "git clone https://github.com/a/b",
    "pip install git+https://github.com/a/b",
    "npm install -g typescript",
    "cargo install ripgrep",
])
def test_build_time_downloads_are_refused(run):
    assert "download" in kinds(f"FROM debian:bookworm\nRUN {run}\n")


def test_pip_option_values_are_not_requirements_and_an_index_is_still_pip():
    apt, pip, refusals = classify_run(
        "pip install --no-cache-dir torch==2.7.1 --index-url https://download.pytorch.org/whl/cpu"
        " -r requirements.txt -c constraints.txt six")
    assert (pip, refusals) == (["torch==2.7.1", "six"], [])


def test_local_git_and_apt_and_pip_are_not_downloads():
    apt, pip, refusals = classify_run("apt-get install -y git && git init && "
                                      "python3 -m pip install numpy==2.0 && uv pip install six")
    assert (apt, pip, refusals) == (["git"], ["numpy==2.0", "six"], [])


@pytest.mark.parametrize(("text", "kind"), [
    ("FROM debian:bookworm\nEXPOSE 8080\n", "service"),
    ("FROM debian:bookworm\nHEALTHCHECK CMD true\n", "service"),
    ("FROM nvidia/cuda:12.4.0-runtime-ubuntu22.04\n", "gpu"),
    ("FROM debian:bookworm AS build\nFROM debian:bookworm\n", "multi_stage"),
    ("FROM debian:bookworm\nCOPY --from=build /x /x\n", "multi_stage"),
    ("FROM debian:bookworm\nADD https://example.org/f /f\n", "download"),
    ("FROM debian:bookworm\nADD data.tar.gz /data\n", "unsupported"),
    ("FROM debian:bookworm\nSHELL [\"/bin/bash\", \"-c\"]\n", "unsupported"),
    ("FROM python:3.11\nRUN pip install torch==2.4.0 numpy\n", "heavy"),
])
def test_each_refusal_kind(text, kind):
    assert kind in kinds(text)


def test_heavy_packages_by_distribution_name():
    assert heavy_packages(["torch==2.4", "nvidia-cublas-cu12", "numpy", "torchmetrics",
                           "jax[cuda]"]) == ["torch==2.4", "nvidia-cublas-cu12", "jax[cuda]"]


@pytest.mark.parametrize("text", [
    "RUN true\n",  # no FROM
    "FROM debian:bookworm\nRUN cat <<EOF\n",  # heredoc
    "FROM debian:bookworm\nRUN --mount=type=cache,target=/x true\n",
    "FROM debian:bookworm\nCOPY onlyone\n",
    "FROM debian:bookworm\nRUN echo \\\n",  # ends inside a continuation
])
def test_unreadable_dockerfiles_raise(text):
    with pytest.raises(DockerfileError):
        parse_dockerfile(text)
