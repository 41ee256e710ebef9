"""The VETR execution-evidence refiner (the paper's Algorithm 1); SPEC.md is its
specification where the paper leaves choices open.

    from tether.scene.refine import refine   # a tether.scene.record.Refiner
"""

from tether.scene.refine.driver import BUILDERS, compile_alternatives, refine, refine_record
from tether.scene.refine.spec import ALTERNATIVES, MAX_EXTRA_EXECUTIONS

__all__ = ["ALTERNATIVES", "BUILDERS", "MAX_EXTRA_EXECUTIONS", "compile_alternatives", "refine",
           "refine_record"]
