"""A compile on a real setting (shapes: no OCR) with the competent scripted teacher."""

from __future__ import annotations

from pathlib import Path

from tether.systems.compile.compiler import CompileConfig, Compiler
from tether.testing.scripted_models import ScriptedModel
from tether.testing.scripted_student import ScriptedStudent

from .conftest import recorded


def test_competent_teacher_on_shapes_beats_bare_and_the_gate_keeps_it(tmp_path: Path) -> None:
    config = CompileConfig(setting="shapes",
                           teacher="scripted:tether.testing.scripted_teacher:competent",
                           student="unused", probe=10, validation=10, test=20, rounds=1,
                           out=str(tmp_path))
    result = Compiler(config, student=ScriptedModel(ScriptedStudent({}).script)).run()
    assert [r["decision"] for r in result["rounds"]] == ["accept", "accept"]
    assert result["selected"]["validation"] > result["bare"]["validation"]
    assert result["selected"]["test"] > result["bare"]["test"]
    prompt = recorded(tmp_path).teacher_call("r00-s0")["prompt"]
    assert "## The setting: shapes" in prompt and '"signals"' in prompt  # resource examples
    assert "The bare harness (the plain question" in prompt
