"""Tiny Terminal-Bench-2-shaped task dirs (a Dockerfile, a uvx verifier) for tests."""

from __future__ import annotations

from pathlib import Path

TB2_TEST_SH = """#!/bin/bash
apt-get update
apt-get install -y curl
curl -LsSf https://astral.sh/uv/0.9.5/install.sh | sh
source $HOME/.local/bin/env
uvx \\
  -p 3.13 \\
  -w pytest==8.4.1 \\
  -w pytest-json-ctrf==0.3.5 \\
  pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; \
else echo 0 > /logs/verifier/reward.txt; fi
"""

COPY_ONLY = """FROM python:3.13-slim-trixie
WORKDIR /app
COPY data.txt /app/data.txt
"""


def make_tb2_task(root: Path, name: str = "demo", *, dockerfile: str = COPY_ONLY,
                  test_sh: str | None = TB2_TEST_SH, files: dict[str, str] | None = None,
                  compose: str | None = None, toml: str | bytes = "[agent]\ntimeout_sec = 60\n",
                  solve: str = "echo 42 > /app/answer.txt\n") -> Path:
    d = root / name
    (d / "environment").mkdir(parents=True)
    (d / "tests").mkdir()
    (d / "solution").mkdir()
    (d / "instruction.md").write_text("Write 42 to /app/answer.txt.\n")
    if isinstance(toml, bytes):  # bytes: written as they are (not UTF-8, say)
        (d / "task.toml").write_bytes(toml)
    else:
        (d / "task.toml").write_text(toml)
    (d / "environment" / "Dockerfile").write_text(dockerfile)
    for rel, text in (files if files is not None else {"data.txt": "data\n"}).items():
        path = d / "environment" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if compose is not None:
        (d / "environment" / "docker-compose.yaml").write_text(compose)
    if test_sh is not None:
        (d / "tests" / "test.sh").write_text(test_sh)
    (d / "tests" / "test_outputs.py").write_text(
        "def test_answer():\n    assert open('/app/answer.txt').read().strip() == '42'\n")
    (d / "solution" / "solve.sh").write_text("#!/bin/bash\n" + solve)
    return d
