"""Terminal-task environments: the Harbor task spec and loader, the sandboxed /app
session a bash agent works in, the hidden verifier, and the task gates
(oracle, null, determinism) behind `tether tasks check`."""

from tether.terminal.environment import (
    AgentTimeExceeded,
    CommandResult,
    EnvironmentSetupError,
    TerminalEnvironment,
    VerifierResult,
    run_verifier,
)
from tether.terminal.spec import TerminalSpec

__all__ = ["AgentTimeExceeded", "CommandResult", "EnvironmentSetupError", "TerminalEnvironment",
           "TerminalSpec", "VerifierResult", "run_verifier"]
