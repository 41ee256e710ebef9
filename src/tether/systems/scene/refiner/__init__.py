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
from tether.systems.scene.refiner.spec import (
           ALTERNATIVES,
           DEFAULT_PROJECTION_SCOPE,
           MAX_EXTRA_EXECUTIONS,
           PROJECTION_SCOPES,
)

__all__ = ["ALTERNATIVES", "BUILDERS", "DEFAULT_PROJECTION_SCOPE", "MAX_EXTRA_EXECUTIONS",
           "PROJECTION_SCOPES", "compile_alternatives", "refine", "refine_record"]
