"""The VETR execution-evidence refiner (the paper's Algorithm 1); SPEC.md is its
specification where the paper leaves choices open.

    from tether.systems.scene.refiner import refine   # a tether.systems.scene.record.Refiner
"""

from tether.systems.scene.refiner.driver import (
           BUILDERS,
           compile_alternatives,
           refine,
           refine_record,
)
from tether.systems.scene.refiner.spec import ALTERNATIVES, MAX_EXTRA_EXECUTIONS

__all__ = ["ALTERNATIVES", "BUILDERS", "MAX_EXTRA_EXECUTIONS", "compile_alternatives", "refine",
           "refine_record"]
