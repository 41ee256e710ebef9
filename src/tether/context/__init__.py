"""The trial context: the one door through which a trial reaches models and instruments."""

from tether.context.trial_context import SEED_STRIDE, ProgressSink, TrialContext

__all__ = ["SEED_STRIDE", "ProgressSink", "TrialContext"]
