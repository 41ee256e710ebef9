"""Terminal-task environments: the Harbor task spec and loader, the sandboxed /app
session a bash agent works in, the hidden verifier, and the task gates
(oracle, null, determinism) behind `tether tasks check`; Harbor tasks with Dockerfiles
imported onto images built without Docker (`tether tasks import`)."""

from tether.terminal.convert import Classification, classify_task
from tether.terminal.dockerfile import Recipe, Refusal, parse_dockerfile
from tether.terminal.environment import (
    AgentTimeExceeded,
    CommandResult,
    EnvironmentSetupError,
    TerminalEnvironment,
    VerifierResult,
    run_verifier,
)
from tether.terminal.images import Image, ImageBuilder, ImageBuildError, ImageSpec
from tether.terminal.imported import ImageRef, gate_status
from tether.terminal.spec import TerminalSpec

__all__ = ["AgentTimeExceeded", "Classification", "CommandResult", "EnvironmentSetupError",
           "Image", "ImageBuildError", "ImageBuilder", "ImageRef", "ImageSpec", "Recipe",
           "Refusal", "TerminalEnvironment", "TerminalSpec", "VerifierResult", "classify_task",
           "gate_status", "parse_dockerfile", "run_verifier"]
