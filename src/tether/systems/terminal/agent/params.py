"""`AgentParams`: how one attempt of the bash agent runs, declared once.

Every terminal strategy (`agent`, `turn_bon`, `trajectory_bon`) declares these params
(its own `Params` subclasses this class) and hands the validated instance to the loop
(`loop.run_attempt`), which reads its limits, sampling and templates from it. Bounds are
refused when a config is loaded, and the templates the loop renders mid-attempt are
rendered once then, so a typo fails before any call.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from tether import params
from tether.systems.terminal.agent.actions import OBSERVATION_LIMIT
from tether.systems.terminal.agent.templates import (
    AGENT_FORMAT_ERROR,
    AGENT_INSTANCE,
    AGENT_OBSERVATION,
    AGENT_SYSTEM,
    render,
)

__all__ = ["AgentParams"]


def _renders_observation(template: str) -> None:
    render(template, observation="{}", steps_left=1)


def _renders_format_error(template: str) -> None:
    for native in (False, True):
        render(template, error="e", errors_left=1, tool_calls=native)


class AgentParams(params.Params):
    """The declared params of the terminal strategies: one attempt's limits, sampling,
    templates and protocol."""

    step_limit: params.Count = Field(30, description="most replies per attempt (a reply "
                                                     "with a format error counts)")
    wall_time_s: params.Seconds | None = Field(
        None, description="wall-clock cap of an attempt (none: the task's agent timeout)")
    command_timeout_s: params.Seconds = Field(60.0, description="cap of one command (also "
                                                                "clipped to the agent time "
                                                                "left)")
    max_tokens: params.Tokens = Field(1024, description="most tokens of one generator reply")
    # the baseline samples like each turn-level best-of-N candidate
    temperature: params.Temperature = Field(1.0, description="the generator's sampling "
                                                             "temperature")
    top_p: params.Sampling = Field(0.95, description="the generator's nucleus sampling")
    max_format_errors: params.Count = Field(3, description="this many replies in a row "
                                                           "without a runnable command end "
                                                           "the attempt")
    observation_limit: params.Count = Field(OBSERVATION_LIMIT, description="longer command "
                                                                           "output is shown "
                                                                           "as head and tail")
    system_template: str = Field(AGENT_SYSTEM, description="the system prompt (a template)")
    instance_template: str = Field(AGENT_INSTANCE, description="the task's first message")
    observation_template: Annotated[str, params.checked(_renders_observation)] = Field(
        AGENT_OBSERVATION, description="a command's output as the model sees it")
    format_error_template: Annotated[str, params.checked(_renders_format_error)] = Field(
        AGENT_FORMAT_ERROR, description="sent back after a reply that cannot run")
    protocol: Literal["auto", "tool_calls", "text"] = Field(
        "auto", description="native tool calls, text commands, or auto (tools where the "
                            "generator supports them)")
    tool_choice: Literal["auto", "required", "bash"] = Field(
        "auto", description="with native tool calls: auto (the model may answer without "
                            "one), required, or bash (force the bash call: small models "
                            "served with a grammar need it)")
    registry_access: bool = Field(
        False, description="let the attempt's commands reach the package registries (and "
                           "nothing else) through the logging proxy; off: no network")
