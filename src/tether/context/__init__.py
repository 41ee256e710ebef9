"""The trial context: the one door through which a trial reaches models and instruments."""

from tether.context.trial_context import (
    FALLBACK_ROLE,
    METRIC_ROLE,
    SEED_STRIDE,
    ProgressSink,
    TrialContext,
    instrument_roles,
    role_for,
)

__all__ = ["FALLBACK_ROLE", "METRIC_ROLE", "SEED_STRIDE", "ProgressSink", "TrialContext",
           "instrument_roles", "role_for"]
