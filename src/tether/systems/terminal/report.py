"""The report's numbers for terminal-agent runs (`agent`, `turn_bon`, `trajectory_bon`).

A trial belongs here when its `extra` has an `end_state` (the agent strategies write it,
with `turns`, `tokens` = {"<role>_output": n} and `turn_records` = `Turn.to_json()` per
turn). Per (arm, budget): end-state counts, pass@k and consistency@k for k = 1..seeds,
turns per attempt, output tokens per role (relative to the baseline arm), the
selector's behaviour preference (`tether.systems.terminal.agent.behaviours`) and the
per-turn reasoning tokens and command characters of the executed replies
(`turn_measures`). Pure functions of the trial entries: plots and HTML only read the
result.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tether.core import AGENT_END_STATES, AgentEndState, AgentFacts, facts_of
from tether.report import arm_budget_groups, baseline_key, subset_baseline
from tether.stats import CI, N_RESAMPLES, SEED, consistency_at_k, mean_pass_at_k
from tether.systems.terminal.agent.behaviours import (
    LABEL_TITLES,
    LABELS,
    LabeledTurn,
    labeled_turns,
    preference_table,
)
from tether.systems.terminal.turn_measures import per_turn

if TYPE_CHECKING:
    from tether.report import TrialEntry
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from tether.report import Section, SectionInput, register_section, validated
from tether.systems.terminal.report_plots import draw_agents

#: excluded from pass@k: infrastructure or harness failures, never a fail
_ERRORED = AgentEndState.AGENT_ERROR


def facts(entry: TrialEntry) -> AgentFacts:
    """The agent facts of an agent trial (see `is_agent_trial`)."""
    found = facts_of(entry.record.extra, AgentFacts)
    if found is None:
        raise ValueError(f"trial {entry.record.trial_id} reported no agent facts")
    return found


def is_agent_trial(entry: TrialEntry) -> bool:
    return facts_of(entry.record.extra, AgentFacts) is not None


def _scored(e: TrialEntry) -> bool:
    return e.record.status != "error" and facts(e).end_state != _ERRORED


def across_seeds(group: Sequence[TrialEntry]) -> list[dict[str, Any]]:
    """pass@k (unbiased, mean over tasks) and consistency@k for k = 1 .. the fewest
    scored seeds of any task; errored trials are left out. Empty when nothing scored."""
    per_task: dict[str, list[bool]] = {}
    for e in group:
        if _scored(e):
            per_task.setdefault(e.key[0], []).append(facts(e).end_state == AgentEndState.PASS)
    if not per_task:
        return []
    counts = {t: (len(v), sum(v)) for t, v in per_task.items()}
    k_max = min(len(v) for v in per_task.values())
    return [{"k": k, "pass_at_k": mean_pass_at_k(counts, k),
             "consistency_at_k": consistency_at_k(per_task, k).fraction,
             "n_tasks": len(per_task)} for k in range(1, k_max + 1)]


def turns_summary(group: Sequence[TrialEntry]) -> dict[str, Any]:
    """Turns per attempt over the trials that report them (errored ones included: a
    harness failure after some turns still shows how long the attempt ran)."""
    turns = sorted(facts(e).turns for e in group if "turns" in facts(e).model_fields_set)
    if not turns:
        return {"values": [], "mean": None, "median": None, "min": None, "max": None}
    return {"values": turns, "mean": statistics.fmean(turns),
            "median": statistics.median(turns), "min": turns[0], "max": turns[-1]}


def token_means(group: Sequence[TrialEntry]) -> dict[str, float]:
    """Mean output tokens (reasoning included) per trial by role, and their total."""
    tokens = [facts(e).tokens for e in group]
    roles = sorted({k.removesuffix("_output") for t in tokens for k in t if k.endswith("_output")})
    n = len(group)
    out = {role: sum(float(t.get(f"{role}_output", 0)) for t in tokens) / n for role in roles}
    out["total"] = sum(out.values())
    return out


def action_counts(turn_records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """How the replies fared: turns, commands run, format errors, and the share of sampled
    candidates that came as native tool calls (the protocol comparison's numbers)."""
    candidates = [c for t in turn_records for c in t.get("candidates") or ()]
    native = sum(1 for c in candidates if c.get("tool_calls"))
    return {"turns": len(turn_records),
            "ran": sum(1 for t in turn_records if t.get("command") is not None),
            "format_errors": sum(1 for t in turn_records if t.get("format_error")),
            "native_share": native / len(candidates) if candidates else None}


def group_turns(group: Sequence[TrialEntry]) -> list[LabeledTurn]:
    """Labelled turns of every trial in the group (a task's seeds tell trials apart)."""
    out: list[LabeledTurn] = []
    for e in group:
        records = facts(e).turn_records
        out += labeled_turns(e.key[0], e.key[1], records)
    return out


def preferences(group: Sequence[TrialEntry]) -> list[dict[str, Any]]:
    """Per label: picked share minus the uniform-pick share, paired bootstrap CI over
    tasks; only turns with two or more candidates count (empty for N = 1 agents)."""
    turns = [t for t in group_turns(group) if len(t.candidate_labels) >= 2]
    # only labels some candidate has: each label costs a full bootstrap (seconds on big runs)
    present = [lab for lab in LABELS
               if any(lab in c for t in turns for c in t.candidate_labels)]
    table = preference_table(turns, present)
    return [{**dataclasses.asdict(p), "title": LABEL_TITLES.get(p.label, p.label)}
            for p in table]


def agent_numbers(entries: Sequence[TrialEntry], report_baseline: str) -> dict[str, Any] | None:
    """numbers["agents"]: None unless the run has terminal-agent trials."""
    agent_entries = [e for e in entries if is_agent_trial(e)]
    if not agent_entries:
        return None
    groups = arm_budget_groups(agent_entries)
    base = subset_baseline(agent_entries, report_baseline)
    rows = []
    for (arm, budget), group in groups.items():
        counts = {s: 0 for s in AGENT_END_STATES}
        for e in group:
            state = facts(e).end_state.value
            counts[state] = counts.get(state, 0) + 1
        tokens = token_means(group)
        key = baseline_key(groups, base, group) if base is not None else None
        ref = token_means(groups[key]) if key is not None else None
        relative = (tokens["total"] / ref["total"]
                    if ref is not None and ref["total"] > 0 else None)
        rows.append({
            "arm": arm, "budget": budget, "n_trials": len(group),
            "n_scored": sum(1 for e in group if _scored(e)),
            "end_states": counts,
            "across_seeds": across_seeds(group),
            "turns": turns_summary(group),
            "actions": action_counts([t for e in group for t in facts(e).turn_records]),
            "tokens": tokens,
            "tokens_baseline": key[0] if key is not None else None,
            "tokens_relative": relative,
            "preferences": preferences(group),
            "per_turn": per_turn(group, groups[key] if key is not None else None),
        })
    return {"end_states": list(AGENT_END_STATES), "rows": rows, "ci": CI,
            "n_resamples": N_RESAMPLES, "bootstrap_seed": SEED}


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
    preferences: list[dict[str, Any]]  # behaviours.Preference, as a dict
    per_turn: dict[str, Any]  # turn_measures.per_turn: the paper's Figure 5


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
    templates = "tether.systems.terminal"
    order = 10

    def compute(self, run: SectionInput) -> AgentNumbers | None:
        return validated(AgentNumbers, agent_numbers(run.entries, run.baseline))

    def draw(self, numbers: dict[str, Any] | None, assets: Path) -> Any:
        return draw_agents(numbers, assets)
