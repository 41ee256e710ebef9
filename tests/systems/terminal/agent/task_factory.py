"""Write small Harbor-layout task dirs for tests (real files, run in the real sandbox)."""

from __future__ import annotations

from pathlib import Path

PASS_IF_DONE = """mkdir -p /logs/verifier
if [ -f /app/done.txt ]; then echo 1 > /logs/verifier/reward.txt
else echo 0 > /logs/verifier/reward.txt; fi
"""


def make_task(root: Path, name: str = "demo", *, setup: str | None = "true\n",
              test: str = PASS_IF_DONE, solve: str | None = "touch /app/done.txt\n",
              files: dict[str, str] | None = None, toml: str | None = None,
              instruction: str = "Create /app/done.txt.") -> Path:
    d = root / name
    (d / "tests").mkdir(parents=True)
    (d / "environment").mkdir()
    (d / "instruction.md").write_text(instruction + "\n")
    (d / "task.toml").write_text(toml if toml is not None else (
        'version = "1.0"\n[agent]\ntimeout_sec = 60.0\n[verifier]\ntimeout_sec = 20.0\n'
        '[environment]\nbuild_timeout_sec = 20.0\nmemory_mb = 512\n'))
    (d / "tests" / "test.sh").write_text("#!/bin/bash\n" + test)
    if setup is not None:
        (d / "environment" / "setup.sh").write_text("#!/bin/bash\n" + setup)
    for rel, text in (files or {}).items():
        path = d / "environment" / "files" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if solve is not None:
        (d / "solution").mkdir()
        (d / "solution" / "solve.sh").write_text("#!/bin/bash\n" + solve)
    return d

