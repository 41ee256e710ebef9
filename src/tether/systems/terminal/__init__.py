"""The terminal system: Harbor-layout tasks and the sandboxed /app session a bash agent
works in, the hidden verifier, the task gates (oracle, null, determinism) behind `tether
tasks check`, tasks with Dockerfiles imported onto images built without Docker (`tether
tasks import`), the bash agent, turn-level and trajectory best-of-N, and the behaviour
labels and report section of agent runs.

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.systems.terminal.agent.behaviours import label_trajectory as label_trajectory
    from tether.systems.terminal.convert import (
        Classification as Classification,
        classify_task as classify_task,
    )
    from tether.systems.terminal.dockerfile import (
        Recipe as Recipe,
        Refusal as Refusal,
        parse_dockerfile as parse_dockerfile,
    )
    from tether.systems.terminal.environment import (
        AgentTimeExceeded as AgentTimeExceeded,
        CommandResult as CommandResult,
        EnvironmentSetupError as EnvironmentSetupError,
        TerminalEnvironment as TerminalEnvironment,
        VerifierResult as VerifierResult,
        run_verifier as run_verifier,
    )
    from tether.systems.terminal.images import (
        Image as Image,
        ImageBuilder as ImageBuilder,
        ImageBuildError as ImageBuildError,
        ImageSpec as ImageSpec,
    )
    from tether.systems.terminal.imported import ImageRef as ImageRef, gate_status as gate_status
    from tether.systems.terminal.spec import TerminalSpec as TerminalSpec

_HOMES: dict[str, str] = {
    "AgentTimeExceeded": "tether.systems.terminal.environment",
    "Classification": "tether.systems.terminal.convert",
    "CommandResult": "tether.systems.terminal.environment",
    "EnvironmentSetupError": "tether.systems.terminal.environment",
    "Image": "tether.systems.terminal.images",
    "ImageBuildError": "tether.systems.terminal.images",
    "ImageBuilder": "tether.systems.terminal.images",
    "ImageRef": "tether.systems.terminal.imported",
    "ImageSpec": "tether.systems.terminal.images",
    "Recipe": "tether.systems.terminal.dockerfile",
    "Refusal": "tether.systems.terminal.dockerfile",
    "TerminalEnvironment": "tether.systems.terminal.environment",
    "TerminalSpec": "tether.systems.terminal.spec",
    "VerifierResult": "tether.systems.terminal.environment",
    "classify_task": "tether.systems.terminal.convert",
    "gate_status": "tether.systems.terminal.imported",
    "label_trajectory": "tether.systems.terminal.agent.behaviours",
    "parse_dockerfile": "tether.systems.terminal.dockerfile",
    "run_verifier": "tether.systems.terminal.environment",
}
__all__ = [
    "AgentTimeExceeded",
    "Classification",
    "CommandResult",
    "EnvironmentSetupError",
    "Image",
    "ImageBuildError",
    "ImageBuilder",
    "ImageRef",
    "ImageSpec",
    "Recipe",
    "Refusal",
    "TerminalEnvironment",
    "TerminalSpec",
    "VerifierResult",
    "classify_task",
    "gate_status",
    "label_trajectory",
    "parse_dockerfile",
    "run_verifier",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
