"""Terminal agents: sandboxed task environments, the bash agent loop, turn-level
best-of-N (generator-selector) and behaviour labels."""

from tether.agents.actions import FINISH_MARKER, parse_action
from tether.agents.loop import AgentConfig, SamplePolicy, run_attempt
from tether.agents.selector import select
from tether.agents.turn_bon import TurnBoNPolicy
from tether.terminal.environment import (
    AgentTimeExceeded,
    CommandResult,
    EnvironmentSetupError,
    TerminalEnvironment,
    VerifierResult,
    run_verifier,
)
from tether.terminal.spec import TerminalSpec

__all__ = [
    "FINISH_MARKER",
    "AgentConfig",
    "AgentTimeExceeded",
    "CommandResult",
    "EnvironmentSetupError",
    "SamplePolicy",
    "TerminalEnvironment",
    "TerminalSpec",
    "TurnBoNPolicy",
    "VerifierResult",
    "parse_action",
    "run_attempt",
    "run_verifier",
    "select",
]
