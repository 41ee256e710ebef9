"""The static instrument: ruff findings and the parse check as defects."""

from __future__ import annotations

from tether.core.artifact import Artifact
from tether.core.task import Task
from tether.instruments.base import InstrumentEnv, build_instrument

TASK = Task(id="t", suite="test", prompt="p", metric="execution")
ENV = InstrumentEnv(sandbox="subprocess")  # static never runs the program


def observe(text: str, spec: str = "static"):
    return build_instrument(spec).observe(Artifact(kind="program", text=text), TASK, ENV)


def test_ruff_findings_are_defects_with_rule_and_location():
    obs = observe("import os\n\ndef f(x=[]):\n    return undefined_name\n")
    kinds = {d.kind: d.location for d in obs.defects}
    assert kinds["F401"] == "1:8"  # unused import
    assert kinds["F821"] == "4:12"  # undefined name
    assert kinds["B006"] == "3:9"  # mutable default
    assert obs.grounded and obs.passed is False and 0.0 <= obs.score < 1.0
    assert "form only" in obs.raw["observes"]


def test_clean_program_passes():
    obs = observe("def f(x):\n    return x + 1\n")
    assert obs.passed is True and obs.defects == [] and obs.score == 1.0


def test_select_option_changes_the_rule_set():
    obs = observe("import os\n\ndef f(x=[]):\n    return x\n", "static;select=B")
    assert [d.kind for d in obs.defects] == ["B006"]


def test_syntax_error_is_one_defect():
    obs = observe("def f(:\n    pass\n")
    assert [d.kind for d in obs.defects] == ["syntax_error"]
    assert obs.defects[0].location.startswith("1:")
    assert obs.passed is False and obs.raw["parses"] is False
