"""The trial context: the one door through which a trial reaches models and instruments.

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.context.calls import charged_generate as charged_generate
    from tether.context.trial_context import (
        FALLBACK_ROLE as FALLBACK_ROLE,
        METRIC_ROLE as METRIC_ROLE,
        SEED_STRIDE as SEED_STRIDE,
        ProgressSink as ProgressSink,
        TrialContext as TrialContext,
        instrument_roles as instrument_roles,
        role_for as role_for,
    )

_HOMES: dict[str, str] = {
    "FALLBACK_ROLE": "tether.context.trial_context",
    "METRIC_ROLE": "tether.context.trial_context",
    "ProgressSink": "tether.context.trial_context",
    "SEED_STRIDE": "tether.context.trial_context",
    "TrialContext": "tether.context.trial_context",
    "charged_generate": "tether.context.calls",
    "instrument_roles": "tether.context.trial_context",
    "role_for": "tether.context.trial_context",
}
__all__ = [
    "FALLBACK_ROLE",
    "METRIC_ROLE",
    "ProgressSink",
    "SEED_STRIDE",
    "TrialContext",
    "charged_generate",
    "instrument_roles",
    "role_for",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
