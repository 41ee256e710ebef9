"""Terminal agents: sandboxed task environments, behaviour labels (loop and turn-BoN)."""

from tether.agents.environment import (
    AgentTimeExceeded,
    CommandResult,
    EnvironmentSetupError,
    TerminalEnvironment,
    VerifierResult,
    run_verifier,
)
from tether.agents.terminal_spec import TerminalSpec

__all__ = [
    "AgentTimeExceeded",
    "CommandResult",
    "EnvironmentSetupError",
    "TerminalEnvironment",
    "TerminalSpec",
    "VerifierResult",
    "run_verifier",
]
