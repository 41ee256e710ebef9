"""Feedback channels: what a loop learns about a failing artifact, as text for a model.

A channel is configuration, never a fork of a strategy. It is written as parts
joined by `+` (or given as a list of parts):
  none                      nothing: the reviewer sees only the task and the program
  critique                  a critique call: a model reads the program without running
                            it and lists defects (role `reviewer`, so it is charged to
                            the reviewing share of the budget; ungrounded)
  lint                      alias of the `static` instrument (ruff + ast)
  screenshot_vlm            a VLM reads a screenshot of the rendered page and answers
                            the task's requirements (role `reviewer`, budgeted;
                            ungrounded: the field's default judge used as feedback)
  any instrument spec       e.g. `execution` (the task's HIDDEN checks, as the
                            interaction-scaling study fed its reviewer),
                            `execution;checks=visible` (only the checks shown in the
                            prompt), `static;select=E,F`, or a visual instrument
                            (`geometry`, `screenshot_vlm`) for other modalities.
So `critique+execution` is a critique call plus the execution observation.

The metric is never the channel: a trial is always scored by the task's metric
instrument (invariant 1). When a channel part is the metric's own spec, the cached
metric observation is reused instead of running the instrument twice.

Execution share -> feedback cycles: a budget share named `execution` buys feedback
cycles, not tokens (no call is charged to an `execution` role):
  cycles = min(max_iterations, max(1, round(share * total / cycle_tokens)))
where `cycle_tokens` (a strategy parameter, default 500) is the nominal cost of one
cycle. Without an `execution` share (or without a finite total) the strategy's
`max_iterations` is the cap.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tether.core.artifact import Artifact
from tether.core.budget import BudgetSpec
from tether.core.observation import Defect, Observation
from tether.instruments.critique import critique_messages, parse_critique
from tether.strategies.base import TrialContext

#: Text a model sees when a channel gives nothing but the verdict is known.
NO_DETAILS = "The current version does not meet the task's requirements yet."

ALIASES = {"lint": "static"}


@dataclass(frozen=True)
class Channel:
    """A feedback channel: an optional critique call plus instrument observations."""

    name: str
    critique: bool = False
    instruments: tuple[str, ...] = ()
    screenshot_vlm: bool = False

    @property
    def empty(self) -> bool:
        return not self.critique and not self.instruments and not self.screenshot_vlm


def parse_channel(value: str | list[str] | tuple[str, ...]) -> Channel:
    """`"critique+lint"` or `["critique", "execution;checks=visible"]` -> Channel."""
    parts = value.split("+") if isinstance(value, str) else list(value)
    critique, vlm, instruments = False, False, []
    for raw in parts:
        part = raw.strip()
        if part in ("", "none"):
            continue
        if part == "critique":
            critique = True
        elif part == "screenshot_vlm":
            vlm = True
        else:
            instruments.append(ALIASES.get(part, part))
    name = value if isinstance(value, str) else "+".join(parts)
    return Channel(name=name, critique=critique, instruments=tuple(instruments),
                   screenshot_vlm=vlm)


@dataclass
class FeedbackReport:
    """What a channel observed about one artifact, and its text for a model."""

    channel: str
    observations: list[Observation] = field(default_factory=list)
    critique: list[Defect] | None = None
    #: the screenshot VLM's unmet requirements (None when the channel has no VLM part)
    vlm: list[Defect] | None = None

    def text(self, max_chars: int = 4000) -> str:
        sections = []
        if self.critique is not None:
            lines = [f"- {_defect_line(d)}" for d in self.critique] or ["- no defects named"]
            sections.append("A reviewer reading the code (without running it) noted:\n"
                            + "\n".join(lines))
        if self.vlm is not None:
            lines = [f"- {d.message}" for d in self.vlm] or ["- every requirement looks met"]
            sections.append("A reviewer looking at a screenshot of the rendered page judged "
                            "these requirements unmet:\n" + "\n".join(lines))
        for obs in self.observations:
            sections.append(format_observation(obs))
        text = "\n\n".join(s for s in sections if s)
        if len(text) > max_chars:
            text = text[:max_chars] + f"\n[... feedback cut at {max_chars} characters]"
        return text


def _defect_line(d: Defect) -> str:
    where = f"{d.location}: " if d.location else ""
    change = d.evidence.get("change") if d.evidence else None
    return f"{where}{d.message}" + (f" (change: {change})" if change else "")


def format_observation(obs: Observation) -> str:
    """An observation as feedback text (expected vs actual when the instrument gave it)."""
    if obs.error:
        # An instrument failure is said as such, never as "no defects" (invariant 6).
        return f"The {obs.instrument} check could not run: {obs.error}"
    if obs.passed:
        return f"{obs.instrument}: passed."
    if obs.instrument == "geometry":
        # coordinates, viewports and a suggested fix per defect: what a layout fix needs
        from tether.instruments.geometry.defects import format_geometry_feedback

        return format_geometry_feedback(obs)
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
    """Run the channel on `artifact`: the critique call (budgeted) and the instruments.

    Raises BudgetExhausted when the critique call does not fit; the caller ends the
    loop and delivers its best so far.
    """
    report = FeedbackReport(channel=channel.name)
    if channel.critique:
        request = critique_messages(ctx.task, artifact.text, artifact.kind)
        (reply,) = ctx.generate("reviewer", request, max_tokens=critique_max_tokens)
        # parse_critique keeps an unreadable reply as one defect holding its text
        report.critique = list(parse_critique(reply.text))
    if channel.screenshot_vlm:
        report.vlm = screenshot_review(ctx, artifact, max_tokens=critique_max_tokens)
    for spec in channel.instruments:
        if spec == ctx.task.metric:
            report.observations.append(ctx.metric(artifact))
        else:
            report.observations.append(ctx.observe(spec, artifact, purpose="feedback"))
    return report


def feedback_cycles(budget: BudgetSpec, *, max_iterations: int, cycle_tokens: int) -> int:
    """How many feedback cycles a trial may run (rule in the module docstring)."""
    share = budget.shares.get("execution")
    if share is None or budget.total is None:
        return max_iterations
    bought = max(1, round(share * budget.total / max(cycle_tokens, 1)))
    return min(max_iterations, bought)


def screenshot_review(ctx: TrialContext, artifact: Artifact, *,
                      max_tokens: int = 512) -> list[Defect]:
    """The screenshot VLM as a channel: a budgeted reviewer call on a real screenshot.

    An unreadable reply is kept as one defect holding its text (like an unreadable
    critique): the loop goes on, and the metric still decides what is delivered.
    """
    from tether.instruments.screenshot_judge import (
        judge_messages,
        judgement_observation,
        parse_judgement,
        screenshot,
    )

    task = ctx.task
    frames = task.data.get("frame_times_ms") or []
    png = screenshot(artifact.text, str(task.data.get("modality", "figure")),
                     frames[-1] if frames else None)
    (reply,) = ctx.generate("reviewer", judge_messages(task, png), max_tokens=max_tokens)
    try:
        checks = parse_judgement(reply.text, len(task.data.get("requirements") or []))
    except ValueError as exc:
        return [Defect(kind="unreadable_review", message=f"{exc}: {reply.text[:500]}")]
    return judgement_observation(task, checks).defects
