"""The harness compiler: a teacher writes and revises a harness for a frozen
student from its probe traces; a disjoint validation split decides what is deployed
(strict gate, bare floor); the test split is touched once, after the freeze.

    from tether.systems.compile.compiler import Compiler, CompileConfig
    result = Compiler(CompileConfig(setting="shapes", teacher=..., student=..., out=DIR)).run()

Modules: config (the fields), run (the compile's run directory: tether.runs' store),
build_records (a build's events), trial (one student scoring as a trial record),
endpoint (the student's budgeted, recorded calls), scoring (a harness on a split
through the runtime), evidence (probe reports), prompts (the teacher's prompts), teacher
(recorded, budgeted calls), gate, loop (one build), build (builds, freeze, test),
gepa_arm (GEPA as a comparator), summary and view (the result, of either layout),
legacy (build directories an earlier tether wrote), records (the shapes read back).
"""

from tether.systems.compile.compiler.build import Compiler, FreezeError
from tether.systems.compile.compiler.config import CompileConfig, load_compile_config
from tether.systems.compile.compiler.summary import summarise

__all__ = ["CompileConfig", "Compiler", "FreezeError", "load_compile_config", "summarise"]
