"""The bash agent: ask for one command, run it, show the result, until the task is done.

One attempt is a conversation: the system and instance templates, then per turn the
chosen reply (assistant) and what came of it (user): the command's JSON observation,
or the format error when the reply held no single runnable command. With native tool
calls (`AgentParams.protocol`, "auto" uses them when the generator's API takes tools)
the bash tool is offered on every call, and what came of a call is a `tool` message
answering it (every call of a reply is answered, as the APIs require). Which reply is
chosen is the policy's business (`SamplePolicy`: one sample, the baseline;
`tether.systems.terminal.turn_bon.TurnBoNPolicy`: N samples and a selector), so the loop, the
limits and the end states are the same for every policy.

An attempt ends with one exit reason:
  submitted       the command printed FINISH_MARKER alone as its first output line
  step_limit      `step_limit` replies were used (format errors count)
  wall_time       the task's agent timeout (or `wall_time_s`) is spent
  token_budget    the trial's token budget has no room for another call
  format_errors   `max_format_errors` replies in a row held no runnable command
  out_of_context  the conversation no longer fits the generator's context, or the
                  executed reply was cut off at the output limit (`max_tokens`): as in
                  the turn-level best-of-N paper's harness, that ends the attempt
  agent_error     the sandbox or the model API failed (never the agent's fault)

A reply cut off at the output limit cannot run, whatever it holds (a command written
before the cut may be incomplete); only the executed reply's cut ends the attempt, so
under turn-level best-of-N a cut candidate the selector passes over costs nothing more.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from tether.context import TrialContext
from tether.core import BudgetExhausted
from tether.errors import ConfigError, TetherError
from tether.models import Completion, ContextLengthExceeded, Message, ToolCall, supports_tools
from tether.strategies import Selection
from tether.systems.terminal.agent.actions import (
    BASH_TOOL,
    FINISH_MARKER,
    FormatError,
    elide,
    is_submission,
    observation_json,
    parse_action,
    parse_native_action,
    strip_private_reasoning,
)
from tether.systems.terminal.agent.params import AgentParams
from tether.systems.terminal.agent.templates import render
from tether.systems.terminal.environment import AgentTimeExceeded, CommandResult

#: The role of the calls that propose actions (falls back to the proposer's model).
GENERATOR_ROLE = "generator"
#: why a reply cut off at the output limit cannot run (and, executed, ends the attempt)
CUT_OFF = "the reply was cut off at the output limit (max_tokens)"


class Environment(Protocol):
    """Where commands run: `TerminalEnvironment`, or a scripted double in tests."""

    def execute(self, command: str, *, timeout_s: float | None = None) -> CommandResult: ...


@dataclass
class Candidate:
    """One sampled reply and what parsing made of it (command None = cannot run)."""

    text: str
    command: str | None
    error: str | None
    output_tokens: int
    finish_reason: str | None = None
    #: the reply's native tool calls (empty for the text protocols)
    tool_calls: tuple[ToolCall, ...] = ()
    #: the token budget, not `max_tokens`, set this call's limit (a cut is the budget's)
    budget_limited: bool = False
    #: the reasoning tokens its provider counted (part of output_tokens)
    reasoning_tokens: int = 0

    @property
    def cut_off(self) -> bool:
        """The reply stopped at the output limit (it cannot run)."""
        return self.finish_reason == "length"

    @classmethod
    def from_completion(cls, completion: Completion) -> Candidate:
        reasoning = completion.usage.reasoning_tokens
        tokens = completion.usage.output_tokens + reasoning
        text = strip_private_reasoning(completion.text)
        calls = completion.tool_calls
        if completion.finish_reason == "length":
            return cls(text, None, CUT_OFF, tokens, completion.finish_reason, calls,
                       reasoning_tokens=reasoning)
        try:
            action = (parse_native_action(calls) if calls else
                      parse_action(completion.text, finish_reason=completion.finish_reason))
        except FormatError as exc:
            return cls(text, None, str(exc), tokens, completion.finish_reason, calls,
                       reasoning_tokens=reasoning)
        return cls(text, action.command, None, tokens, completion.finish_reason, calls,
                   reasoning_tokens=reasoning)

    @property
    def shown(self) -> str:
        """The candidate as a reader (the selector) sees it: its text and its tool calls."""
        calls = "\n".join(f"[bash tool call] {c.arguments}" for c in self.tool_calls)
        return "\n".join(part for part in (self.text, calls) if part)

    def assistant_message(self) -> Message:
        """The reply as it goes back into the conversation."""
        if not self.tool_calls:
            return {"role": "assistant", "content": self.text}
        # "" rather than null: OpenAI takes both, but some OpenAI-compatible servers
        # (llama-cpp-python's) reject a null assistant content.
        return {"role": "assistant", "content": self.text,
                "tool_calls": [c.to_message() for c in self.tool_calls]}

    def to_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {"text": self.text, "command": self.command, "error": self.error,
                               "output_tokens": self.output_tokens,
                               "reasoning_tokens": self.reasoning_tokens,
                               "finish_reason": self.finish_reason}
        if self.tool_calls:
            row["tool_calls"] = [c.to_message() for c in self.tool_calls]
        return row


@dataclass
class Decision:
    """The candidates of one turn and which one is executed."""

    candidates: list[Candidate]
    index: int = 0
    selection: Selection | None = None
    #: why no selector ran (n = 1, or no candidate could run)
    selector_skipped: str | None = None

    @property
    def chosen(self) -> Candidate:
        return self.candidates[self.index]


class Policy(Protocol):
    """Chooses the reply of one turn from the conversation so far."""

    def decide(self, ctx: TrialContext, messages: list[Message],
               turns: list[Turn]) -> Decision: ...


@dataclass
class Turn:
    """One step: the decision, the command run (if any) and what the model was shown."""

    step: int
    decision: Decision
    command: str | None
    returncode: int | None = None
    output: str = ""
    format_error: str | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    #: why a runnable command was not run (the agent's time ran out first)
    not_run: str | None = None
    #: the executed reply was cut off at the output limit (the attempt ends out of context)
    cut_off: bool = False

    def to_json(self, output_chars: int = 2_000) -> dict[str, Any]:
        d = self.decision
        shown, _ = elide(self.output, output_chars)
        return {"step": self.step, "command": self.command, "returncode": self.returncode,
                "output": shown, "format_error": self.format_error,
                "timed_out": self.timed_out, "duration_s": round(self.duration_s, 3),
                "not_run": self.not_run, "cut_off": self.cut_off,
                "selected_index": d.index,
                "candidates": [c.to_json() for c in d.candidates],
                "selector": d.selection.to_json() if d.selection else None,
                "selector_failed": bool(d.selection and d.selection.failed),
                "selector_skipped": d.selector_skipped}


@dataclass
class AttemptResult:
    exit_reason: str
    turns: list[Turn] = field(default_factory=list)
    error: str | None = None
    error_kind: str | None = None
    wall_s: float = 0.0

    @property
    def executed(self) -> list[Turn]:
        return [t for t in self.turns if t.command is not None]

    def transcript(self, header: str = "") -> str:
        """The executed commands as a shell transcript (the delivered artifact's text)."""
        lines = [f"# {header}"] if header else []
        for t in self.executed:
            lines.append(f"# step {t.step}: exit {t.returncode}"
                         + (" (timed out)" if t.timed_out else ""))
            lines.append(t.command or "")  # executed turns all have a command
        lines.append(f"# ended: {self.exit_reason}")
        return "\n".join(lines) + "\n"


class SamplePolicy:
    """The baseline: one sample per turn, executed as it is (no selector)."""

    def __init__(self, params: AgentParams, role: str = GENERATOR_ROLE) -> None:
        self.params = params
        self.role = role

    def decide(self, ctx: TrialContext, messages: list[Message], turns: list[Turn]) -> Decision:
        return Decision(candidates=sample_candidates(ctx, messages, 1, self.params, self.role),
                        selector_skipped="n=1")


def sample_candidates(ctx: TrialContext, messages: list[Message], n: int,
                      params: AgentParams, role: str = GENERATOR_ROLE) -> list[Candidate]:
    """n i.i.d. replies to the conversation, each parsed as the baseline would."""
    native = native_tools(ctx, params, role)
    # "auto" is every API's default tool choice: not sent, so requests keep one key.
    choice = params.tool_choice if native and params.tool_choice != "auto" else None
    tools = [BASH_TOOL] if native else None
    room = ctx.ledger.room(role, messages, n, tools=tools)
    completions = ctx.generate(role, messages, n=n, max_tokens=params.max_tokens,
                               temperature=params.temperature, top_p=params.top_p,
                               tools=tools, tool_choice=choice)
    limited = room is not None and room // n < params.max_tokens
    return [replace(Candidate.from_completion(c), budget_limited=limited) for c in completions]


def native_tools(ctx: TrialContext, params: AgentParams, role: str = GENERATOR_ROLE) -> bool:
    """Whether this attempt's generator calls the bash tool natively."""
    if params.protocol == "text":
        return False
    able = supports_tools(ctx.model(role))
    if params.protocol == "tool_calls" and not able:
        raise ConfigError(f"agent: protocol \"tool_calls\" but {ctx.model(role).model_id} "
                          "does not take native tool calls",
                          hint='use protocol = "auto" or "text" for this model')
    return able


def first_messages(ctx: TrialContext, params: AgentParams, workdir: str,
                   native: bool) -> list[Message]:
    variables = template_variables(ctx, params, workdir, native)
    return [{"role": "system", "content": render(params.system_template, **variables)},
            {"role": "user", "content": render(params.instance_template, **variables)}]


def template_variables(ctx: TrialContext, params: AgentParams, workdir: str,
                       native: bool) -> dict[str, Any]:
    return {"task": ctx.task.prompt, "workdir": workdir, "step_limit": params.step_limit,
            "command_timeout_s": params.command_timeout_s, "finish_marker": FINISH_MARKER,
            "tool_calls": native}


def answer(chosen: Candidate, text: str) -> list[Message]:
    """What the environment says back to the chosen reply: one `tool` message per native
    call (the first call carries `text`; with several calls, a format error, each one
    is told it did not run), or one user message for a text-protocol reply."""
    if not chosen.tool_calls:
        return [{"role": "user", "content": text}]
    first, *rest = chosen.tool_calls
    return [{"role": "tool", "tool_call_id": first.id, "content": text},
            *({"role": "tool", "tool_call_id": c.id,
               "content": "Not run: one bash call per reply."} for c in rest)]


def run_attempt(ctx: TrialContext, env: Environment, policy: Policy, params: AgentParams,
                *, workdir: str = "/app", attempt: int = 1) -> AttemptResult:
    """Run one attempt to its exit reason. Raises only for harness bugs.

    Each turn is reported to the trial's progress sink as it ends (kind "turn", its
    `Turn.to_json()` plus the attempt number), so a killed trial keeps its trajectory.
    """
    start = time.monotonic()
    deadline = start + params.wall_time_s if params.wall_time_s else math.inf
    native = native_tools(ctx, params)
    messages = first_messages(ctx, params, workdir, native)
    result = AttemptResult(exit_reason="step_limit")
    format_errors = 0

    def record(turn: Turn) -> None:
        result.turns.append(turn)
        ctx.report_progress("turn", {"attempt": attempt, **turn.to_json()})

    def time_left() -> float:
        env_left = getattr(env, "time_left_s", None)
        return min(deadline - time.monotonic(), env_left() if env_left else math.inf)

    try:
        while True:
            if len(result.turns) >= params.step_limit:
                result.exit_reason = "step_limit"
                break
            if time_left() <= 0:
                result.exit_reason = "wall_time"
                break
            decision = policy.decide(ctx, messages, result.turns)
            chosen = decision.chosen
            step = len(result.turns) + 1
            # Rebound, never appended to: each call's record keeps the list it was sent.
            messages = [*messages, chosen.assistant_message()]
            if chosen.cut_off:
                record(Turn(step, decision, None, cut_off=True))
                # a cut at what the token budget left is the budget running out
                result.exit_reason = "token_budget" if chosen.budget_limited else \
                    "out_of_context"
                result.error = None if chosen.budget_limited else CUT_OFF
                break
            if chosen.command is None:
                format_errors += 1
                record(Turn(step, decision, None, format_error=chosen.error))
                if format_errors >= params.max_format_errors:
                    result.exit_reason = "format_errors"
                    break
                messages = [*messages, *answer(chosen, render(
                    params.format_error_template, error=chosen.error,
                    errors_left=params.max_format_errors - format_errors, tool_calls=native))]
                continue
            format_errors = 0
            try:
                if time_left() <= 0:  # the model call used up the time that was left
                    raise AgentTimeExceeded("agent time ran out before the command could run")
                timeout = max(min(params.command_timeout_s, time_left()), 0.001)
                ran = env.execute(chosen.command, timeout_s=timeout)
            except AgentTimeExceeded as exc:
                # Keep the turn's decision (candidates, selector) in the record: it was paid for.
                record(Turn(step, decision, None, not_run=str(exc)))
                raise
            record(Turn(step, decision, chosen.command, ran.returncode, ran.output,
                        timed_out=ran.timed_out, duration_s=ran.duration_s))
            if is_submission(ran.output):
                result.exit_reason = "submitted"
                break
            messages = [*messages, *answer(chosen, render(
                params.observation_template,
                observation=observation_shown(ran, params.observation_limit),
                steps_left=params.step_limit - step))]
    except AgentTimeExceeded:
        result.exit_reason = "wall_time"
    except BudgetExhausted:
        result.exit_reason = "token_budget"
    except ContextLengthExceeded as exc:
        result.exit_reason, result.error = "out_of_context", str(exc)
    except ConfigError:
        raise  # a bad template or model spec is the user's to fix, not an agent outcome
    except TetherError as exc:  # sandbox or model API failure: the harness's, not the agent's
        result.exit_reason, result.error = "agent_error", f"{type(exc).__name__}: {exc}"
        result.error_kind = type(exc).__name__
    result.wall_s = time.monotonic() - start
    return result


def observation_shown(ran: CommandResult, limit: int) -> str:
    """The JSON the model sees; output the environment already capped is not cut again."""
    flags: dict[str, object] = {}
    if ran.timed_out:
        flags["timed_out"] = True
    elif ran.killed_reason:
        flags["killed"] = ran.killed_reason
    return observation_json(ran.returncode, ran.output, limit=limit,
                            already_elided=ran.output_elided, **flags)
