"""`static`: ruff and an `ast` parse check on a program's text.

Grounded (a linter's reading is exact) but it observes form only: a program can be
lint-clean and wrong, and `raw["observes"]` says so. ruff reads a file we write to a
temp dir and never executes it, so it runs outside the sandbox.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from tether import params
from tether.core import Artifact, Defect, Observation, Task
from tether.errors import ConfigError
from tether.instruments import InstrumentEnv, register_instrument

DEFAULT_SELECT = "E,F,B"
RUFF_TIMEOUT_S = 30


def find_ruff() -> str:
    """The ruff of this environment (the venv's bin first), else the one on PATH."""
    beside = Path(sys.prefix) / "bin" / "ruff"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("ruff")
    if found is None:
        raise ConfigError("ruff not found for the static instrument",
                          hint="pip install ruff (it is a tether dependency)")
    return found


@register_instrument("static")
class StaticInstrument:
    name: ClassVar[str] = "static"
    version: ClassVar[str] = "1"
    grounded: ClassVar[bool] = True

    class Params(params.Params):
        select: str | list[str] = Field(DEFAULT_SELECT, description="the ruff rule codes "
                                                                    "(comma-separated)")
        line_length: params.Count = Field(100, description="ruff's line length")

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()
        select = self.params.select
        #: the rule codes as ruff's --select takes them
        self.select = ",".join(select) if isinstance(select, list) else select

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        start = time.monotonic()
        raw: dict = {"observes": "form only (lint + parse), not behaviour",
                     "select": self.select}
        try:
            ast.parse(artifact.text)
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None)
            col = getattr(exc, "offset", None)
            defect = Defect(kind="syntax_error", message=f"does not parse: {exc}",
                            location=f"{line}:{col}" if line else None)
            raw["parses"] = False
            return Observation(instrument=self.name, version=self.version, grounded=True,
                               score=0.0, passed=False, defects=[defect], raw=raw,
                               duration_s=time.monotonic() - start)
        raw["parses"] = True
        findings = self._ruff(artifact.text)
        defects = [Defect(kind=f.get("code") or "ruff", message=f.get("message", ""),
                          location=f"{f['location']['row']}:{f['location']['column']}",
                          evidence={"url": f.get("url"), "fixable": f.get("fix") is not None})
                   for f in findings]
        raw["n_findings"] = len(defects)
        n_lines = max(1, artifact.text.count("\n") + 1)
        # Score: share of lines without a finding (a linter has no "fraction passed").
        flagged = {f["location"]["row"] for f in findings}
        return Observation(instrument=self.name, version=self.version, grounded=True,
                           score=1.0 - min(1.0, len(flagged) / n_lines),
                           passed=not defects, defects=defects, raw=raw,
                           duration_s=time.monotonic() - start)

    def _ruff(self, text: str) -> list[dict]:
        with tempfile.TemporaryDirectory(prefix="tether-static-") as tmp:
            path = Path(tmp) / "program.py"
            path.write_text(text)
            argv = [find_ruff(), "check", "--isolated", "--no-cache", "--output-format", "json",
                    "--select", self.select, "--line-length", str(self.params.line_length),
                    str(path)]
            proc = subprocess.run(argv, capture_output=True, text=True, cwd=tmp,
                                  timeout=RUFF_TIMEOUT_S)
        if proc.returncode not in (0, 1):  # 1 = findings; anything else is ruff failing
            raise RuntimeError(f"ruff failed (exit {proc.returncode}): {proc.stderr.strip()}")
        try:
            return json.loads(proc.stdout or "[]")
        except ValueError as exc:
            raise RuntimeError(f"ruff printed no JSON: {proc.stdout[:200]!r}") from exc
