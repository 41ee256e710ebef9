"""The Agents section: terminal-agent trials (numbers: report/agents.py; plots:
report/agent_plots.py; template: agents.html.j2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from tether.report.agent_plots import draw_agents
from tether.report.agents import agent_numbers
from tether.report.section import Section, SectionInput, register_section, validated

Number = int | float  # as computed: an int stays an int in the JSON


class AtK(BaseModel):
    model_config = ConfigDict(extra="forbid")
    k: int
    pass_at_k: Number
    consistency_at_k: Number
    n_tasks: int


class Turns(BaseModel):
    model_config = ConfigDict(extra="forbid")
    values: list[int]
    mean: Number | None
    median: Number | None
    min: int | None
    max: int | None


class Actions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    turns: int
    ran: int
    format_errors: int
    native_share: Number | None


class AgentRow(BaseModel):
    """One (arm, budget) group of agent trials."""

    model_config = ConfigDict(extra="forbid")
    arm: str
    budget: str
    n_trials: int
    n_scored: int
    end_states: dict[str, int]
    across_seeds: list[AtK]
    turns: Turns
    actions: Actions
    tokens: dict[str, Number]  # mean output tokens per role, and "total"
    tokens_baseline: str | None
    tokens_relative: Number | None
    preferences: list[dict[str, Any]]  # tether.agents.behaviours.Preference, as a dict


class AgentNumbers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    end_states: list[str]
    rows: list[AgentRow]
    ci: Number
    n_resamples: int
    bootstrap_seed: int


@register_section
class AgentsSection(Section):
    name = "agents"
    numbers_model = AgentNumbers
    template = "agents.html.j2"
    order = 10

    def compute(self, run: SectionInput) -> AgentNumbers | None:
        return validated(AgentNumbers, agent_numbers(run.entries, run.baseline))

    def draw(self, numbers: dict[str, Any] | None, assets: Path) -> Any:
        return draw_agents(numbers, assets)
