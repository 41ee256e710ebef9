"""Feedback channels: what a loop learns about a failing artifact, as text for a model.

A channel is configuration, never a fork of a strategy. It is written as parts
joined by `+` (or given as a list of parts); every part is an instrument spec:
  none                      nothing: the reviewer sees only the task and the program
  critique                  the `critique` instrument: a model reads the program without
                            running it and lists defects (ungrounded)
  lint                      alias of the `static` instrument (ruff + ast)
  screenshot_vlm            alias of `screenshot_judge`: a VLM reads a screenshot of the
                            rendered page and answers the task's requirements
                            (ungrounded: the field's default judge used as feedback)
  any instrument spec       e.g. `execution` (the task's HIDDEN checks, as the
                            interaction-scaling study fed its reviewer),
                            `execution;checks=visible` (only the checks shown in the
                            prompt), `static;select=E,F`, `critique;model=SPEC`, or a
                            visual instrument (`geometry`) for other modalities.
So `critique+execution` is a critique call plus the execution observation.

Model-backed parts (critique, screenshot judge) call the `generate` the trial binds for
feedback: role `reviewer`, charged to the reviewing share of the budget before the call
and recorded (invariant 2); `;model=SPEC` picks another model for the same role. A
model-backed part without its own `max_tokens` gets the strategy's reviewer token cap.

The metric is never the channel: a trial is always scored by the task's metric
instrument (invariant 1). When a channel part is the metric's own spec, the cached
metric observation is reused instead of running the instrument twice, except for a
model-backed metric: its feedback calls are reviewer calls, charged to the budget.

Execution share -> feedback cycles: a budget share named `execution` buys feedback
cycles, not tokens (no call is charged to an `execution` role):
  cycles = min(max_iterations, max(1, round(share * total / cycle_tokens)))
where `cycle_tokens` (a strategy parameter, default 500) is the nominal cost of one
cycle. Without an `execution` share (or without a finite total) the strategy's
`max_iterations` is the cap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from tether.context import TrialContext, instrument_roles
from tether.core import Artifact, BudgetSpec, Observation
from tether.instruments import (
    calls_model,
    check_instrument,
    feedback_wording,
    parse_spec,
)
from tether.params import checked

#: Text a model sees when a channel gives nothing but the verdict is known.
NO_DETAILS = "The current version does not meet the task's requirements yet."

ALIASES = {"lint": "static", "screenshot_vlm": "screenshot_judge"}
#: The budget share that buys feedback cycles (`feedback_cycles`); no call is charged to it.
EXECUTION_SHARE = "execution"


@dataclass(frozen=True)
class Channel:
    """A feedback channel: the instrument specs whose observations a loop is shown."""

    name: str
    instruments: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.instruments

    @property
    def roles(self) -> tuple[str, ...]:
        """The roles its model-backed parts (those declaring `calls_model`) spend under."""
        return tuple(dict.fromkeys(r for spec in self.instruments
                                   for r in instrument_roles(spec, "feedback")))


def _canonical(part: str) -> str:
    head, sep, rest = part.partition(";")
    return ALIASES.get(head.strip(), head.strip()) + sep + rest


def parse_channel(value: str | list[str] | tuple[str, ...]) -> Channel:
    """`"critique+lint"` or `["critique", "execution;checks=visible"]` -> Channel."""
    parts = value.split("+") if isinstance(value, str) else list(value)
    instruments = [_canonical(p.strip()) for p in parts if p.strip() not in ("", "none")]
    name = value if isinstance(value, str) else "+".join(parts)
    return Channel(name=name, instruments=tuple(instruments))


def _check_channel(value: str | list[str]) -> None:
    for spec in parse_channel(value).instruments:
        check_instrument(spec)


#: A feedback channel as a declared strategy parameter (`tether.params`): every part is
#: checked against its instrument's declaration when the params are validated.
FeedbackSpec = Annotated[str | list[str], checked(_check_channel)]


def channel_roles(value: str | list[str]) -> tuple[str, ...]:
    """The roles a channel's model-backed parts spend under (a declaration's roles())."""
    return parse_channel(value).roles


def _with_token_cap(spec: str, max_tokens: int) -> str:
    """A model-backed part without its own `max_tokens` gets the strategy's cap."""
    _, options = parse_spec(spec)
    if calls_model(spec) and "max_tokens" not in options:
        return f"{spec};max_tokens={max_tokens}"
    return spec


@dataclass
class FeedbackReport:
    """What a channel observed about one artifact, and its text for a model."""

    channel: str
    observations: list[Observation] = field(default_factory=list)

    def text(self, max_chars: int = 4000) -> str:
        text = "\n\n".join(s for s in (format_observation(o) for o in self.observations) if s)
        if len(text) > max_chars:
            text = text[:max_chars] + f"\n[... feedback cut at {max_chars} characters]"
        return text


def format_observation(obs: Observation) -> str:
    """An observation as feedback text (expected vs actual when the instrument gave it)."""
    if obs.error:
        # An instrument failure is said as such, never as "no defects" (invariant 6).
        return f"The {obs.instrument} check could not run: {obs.error}"
    # an instrument with its own wording (a model's opinion says whose it is; geometry
    # gives coordinates and a fix per defect) words it; the rest take the generic form
    own = feedback_wording(obs.instrument)
    if own is not None:
        return own(obs)
    if obs.passed:
        return f"{obs.instrument}: passed."
    head = f"{obs.instrument}: failed"
    if obs.score is not None:
        head += f" (score {obs.score:.2f})"
    lines = [head + "."]
    for d in obs.defects:
        where = f" at {d.location}" if d.location else ""
        line = f"- [{d.kind}]{where}: {d.message}"
        ev = d.evidence or {}
        if ("expected" in ev or "actual" in ev) and str(ev.get("actual")) not in d.message:
            line += f" (expected {ev.get('expected')!s}, got {ev.get('actual')!s})"
        lines.append(line)
    return "\n".join(lines)


def collect(ctx: TrialContext, channel: Channel, artifact: Artifact, *,
            critique_max_tokens: int = 512) -> FeedbackReport:
    """Observe `artifact` with every instrument of the channel, in order.

    Model-backed parts make their call through the trial (role `reviewer`, budgeted and
    recorded); BudgetExhausted from such a call propagates, so the caller ends the loop
    and delivers its best so far.
    """
    report = FeedbackReport(channel=channel.name)
    for spec in channel.instruments:
        if spec == ctx.task.metric and not calls_model(spec):
            # a grounded metric's cached observation is reused; a model's opinion as
            # feedback is a reviewer call of its own, charged to the budget
            report.observations.append(ctx.metric(artifact))
        else:
            report.observations.append(ctx.observe(_with_token_cap(spec, critique_max_tokens),
                                                   artifact, purpose="feedback"))
    return report


def feedback_cycles(budget: BudgetSpec, *, max_iterations: int, cycle_tokens: int) -> int:
    """How many feedback cycles a trial may run (rule in the module docstring)."""
    share = budget.shares.get(EXECUTION_SHARE)
    if share is None or budget.total is None:
        return max_iterations
    bought = max(1, round(share * budget.total / max(cycle_tokens, 1)))
    return min(max_iterations, bought)
