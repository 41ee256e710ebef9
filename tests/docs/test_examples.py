"""The docs' examples run: every ```python and ```bash block of README.md and docs/**/*.md.

A block is skipped only when the line right before its fence is
`<!-- not-run: REASON -->` (with a reason). Output shown to readers goes in ```text blocks,
which are never run. The blocks of one page run in order in one temporary directory (a
tutorial's later step may use a file an earlier one wrote); python blocks run in a
subprocess with this interpreter, bash blocks with `bash -e -o pipefail` and the
interpreter's bin directory first on PATH.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^(\s*)(`{3,})(\w*)\s*$")
NOT_RUN = re.compile(r"^\s*<!--\s*not-run:\s*(\S.*?)\s*-->\s*$")
RUNNABLE = {"python", "bash"}
TIMEOUT_S = 120


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    not_run: str | None  # the reason, when marked


def blocks_of(page: Path) -> list[Block]:
    """Every fenced block of `page` with its language and not-run reason."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, lang = m.group(1), m.group(2), m.group(3)
        body, j = [], i + 1
        while j < len(lines) and not re.match(rf"^\s*{ticks}\s*$", lines[j]):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        mark = NOT_RUN.match(lines[i - 1]) if i > 0 else None
        found.append(Block(page, i + 1, lang, "\n".join(body) + "\n",
                           mark.group(1) if mark else None))
        i = j + 1
    return found


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def run_block(block: Block, cwd: Path) -> subprocess.CompletedProcess[str]:
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}
    if block.lang == "python":
        cmd = [sys.executable, "-c", block.code]
    else:
        cmd = ["bash", "-e", "-o", "pipefail", "-c", block.code]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False)


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_page_examples_run(page: Path, tmp_path: Path) -> None:
    for block in blocks_of(page):
        if block.lang not in RUNNABLE or block.not_run:
            continue
        done = run_block(block, tmp_path)
        where = f"{page.relative_to(ROOT)}:{block.line}"
        assert done.returncode == 0, (f"{where}: ```{block.lang} block exited "
                                      f"{done.returncode}\n{block.code}\n--- stdout\n"
                                      f"{done.stdout[-2000:]}\n--- stderr\n"
                                      f"{done.stderr[-2000:]}")


def test_collector_reads_marks_and_indented_fences(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("<!-- not-run: needs a server -->\n```bash\nexit 1\n```\n\n"
                    "- step\n\n    ```python\n    print(1)\n    ```\n\n```text\nout\n```\n"
                    "<!-- not-run: -->\n```bash\ntrue\n```\n")
    got = [(b.lang, b.code, b.not_run) for b in blocks_of(page)]
    assert got == [("bash", "exit 1\n", "needs a server"), ("python", "print(1)\n", None),
                   ("text", "out\n", None), ("bash", "true\n", None)]


def test_a_failing_block_fails(tmp_path: Path) -> None:
    block = Block(tmp_path / "x.md", 1, "bash", "false\n", None)
    assert run_block(block, tmp_path).returncode != 0
