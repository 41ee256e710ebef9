"""`agent`: the bash agent on a terminal task, one sample per turn (the N = 1 baseline).

Also the pieces the other terminal strategies (`turn_bon`, `trajectory_bon`) share:
opening the task's environment, delivering an attempt as an Artifact, and sorting
the outcome into the end states of a terminal run, as the turn-level best-of-N paper's
Table 2 (and its appendix table of endings) assigns them: only an attempt that ended on
its own, by submitting, can pass; an attempt that a harness exception stopped counts as
a failure even when the verifier accepts its final state.

  pass              the agent submitted and the verifier passes it
  wrong_submission  the agent submitted and the verifier fails it
  out_of_context    the conversation outgrew the generator's context, or the executed
                    reply was cut off at the output limit
  time_limit        a harness limit stopped the attempt: steps, wall time, or the
                    token budget
  format_error      `max_format_errors` replies in a row could not run (tether's own
                    stop; the paper's harness has none): the model's failure
  agent_error       the sandbox, the model API or the verifier failed: never a score

The verifier still runs on every attempt but an agent error, and its observation is the
trial's metric (invariant 1); the trial's `passed` and score follow the ending
(`TrialRecord.passed`: a stopped attempt has not passed), so the run summary, the paired
tests, the report and the exports all read one rule.

The delivered artifact is the transcript of executed commands (kind "shell") with the
final /app on the host in `meta["app_dir"]`; the strategy verifies it through the
task's metric while the environment is still open (the trial runner's own metric call
then reads the cached observation), and removes the directory afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, ClassVar

from tether.context import TrialContext
from tether.core import AgentEndState, AgentFacts, Artifact, EndState, Observation
from tether.strategies import StrategyResult, register_strategy
from tether.systems.terminal.agent.loop import (
    GENERATOR_ROLE,
    AttemptResult,
    Environment,
    Policy,
    SamplePolicy,
    run_attempt,
)
from tether.systems.terminal.agent.params import AgentParams
from tether.systems.terminal.environment import TerminalEnvironment
from tether.systems.terminal.snapshot import changed_files, snapshot_tree

#: Opens the environment of one attempt (a context manager that starts and cleans up).
EnvironmentFactory = Callable[[TrialContext, AgentParams],
                              AbstractContextManager[Environment]]

_LIMIT_EXITS = ("step_limit", "wall_time", "token_budget")


def terminal_environment(ctx: TrialContext, params: AgentParams) -> TerminalEnvironment:
    """The task's sandboxed environment, with the agent's command timeout and output cap."""
    return TerminalEnvironment.for_task(ctx.task, sandbox=ctx.env.sandbox,
                                        command_timeout_s=params.command_timeout_s,
                                        output_chars=params.observation_limit,
                                        registry_access=params.registry_access)


def attempt_artifact(attempt: AttemptResult, env: Environment, header: str) -> Artifact:
    app_dir = getattr(env, "app_dir", None)
    system_dir = getattr(env, "system_dir", None)
    return Artifact(kind="shell", text=attempt.transcript(header),
                    meta={"app_dir": str(app_dir) if app_dir is not None else None,
                          "system_dir": str(system_dir) if system_dir is not None else None,
                          "exit_reason": attempt.exit_reason})


def environment_record(env: Environment) -> dict[str, Any]:
    """What the trial keeps about the attempt's environment (`TerminalEnvironment.record`:
    root in its namespace, a writable system, the registry option and its requests)."""
    record = getattr(env, "record", None)
    return {"environment": record()} if callable(record) else {}


def verify(ctx: TrialContext, attempt: AttemptResult, artifact: Artifact) -> Observation | None:
    """The metric observation of an attempt's final state (None after an agent error)."""
    if attempt.exit_reason == "agent_error":
        return None
    return ctx.metric(artifact)


def end_state(attempt: AttemptResult, metric: Observation | None) -> AgentEndState:
    """The attempt's ending (see the module docstring): the exception first, the verifier
    only for an attempt that submitted."""
    if attempt.exit_reason == "agent_error" or metric is None or metric.error:
        return AgentEndState.AGENT_ERROR
    if attempt.exit_reason == "out_of_context":
        return AgentEndState.OUT_OF_CONTEXT
    if attempt.exit_reason == "format_errors":
        return AgentEndState.FORMAT_ERROR
    if attempt.exit_reason in _LIMIT_EXITS:
        return AgentEndState.TIME_LIMIT
    return AgentEndState.PASS if metric.passed else AgentEndState.WRONG_SUBMISSION


def trial_status(state: AgentEndState, attempt: AttemptResult) -> EndState:
    if state is AgentEndState.TIME_LIMIT and attempt.exit_reason == "token_budget":
        return EndState.BUDGET_EXHAUSTED
    return state.trial_status


def token_summary(ctx: TrialContext) -> dict[str, int]:
    """Output tokens (reasoning included) per role: generator over all N candidates."""
    return {f"{role}_output": u.output_tokens + u.reasoning_tokens
            for role, u in sorted(ctx.ledger.spent.items())}


def attempt_summary(attempt: AttemptResult) -> dict[str, Any]:
    return {"exit_reason": attempt.exit_reason, "turns": len(attempt.turns),
            "executed": len(attempt.executed),
            "format_errors": sum(t.format_error is not None for t in attempt.turns),
            "selector_failed_turns": sum(bool(t.decision.selection and t.decision.selection.failed)
                                         for t in attempt.turns),
            "wall_s": round(attempt.wall_s, 3), "error": attempt.error,
            "turn_records": [t.to_json() for t in attempt.turns]}


def deliver(ctx: TrialContext, attempt: AttemptResult, artifact: Artifact,
            metric: Observation | None, extra: dict[str, Any]) -> StrategyResult:
    """The StrategyResult of a verified attempt, with its end state in status and extra."""
    state = end_state(attempt, metric)
    out = {"end_state": state, **extra, "tokens": token_summary(ctx)}
    if state is AgentEndState.AGENT_ERROR:
        if attempt.exit_reason == "agent_error":
            out["error_kind"], out["error_message"] = attempt.error_kind, attempt.error
        elif metric is not None and metric.error:
            out["error_kind"], out["error_message"] = "instrument", metric.error
    facts = AgentFacts(**out)
    # error_kind / error_message also stay in extra: the runner reads them from there
    return StrategyResult(artifact=artifact, status=trial_status(state, attempt),
                          extra={k: out[k] for k in ("error_kind", "error_message") if k in out},
                          facts=facts)


def watch_app(env: Environment) -> Callable[[], list[str] | None]:
    """Snapshot the attempt's /app now; the returned function lists the files changed
    since (None for an environment without a host /app, e.g. a scripted double). The
    reward-hacking judge reads the list (`extra["changed_files"]`)."""
    app_dir = getattr(env, "app_dir", None)
    if app_dir is None:
        return lambda: None
    before = snapshot_tree(Path(app_dir))
    return lambda: changed_files(before, snapshot_tree(Path(app_dir)))


def run_one(ctx: TrialContext, policy: Policy, params: AgentParams,
            factory: EnvironmentFactory, extra: dict[str, Any]) -> StrategyResult:
    """One attempt in a fresh environment, verified before the environment goes away."""
    with factory(ctx, params) as env:
        changes = watch_app(env)
        attempt = run_attempt(ctx, env, policy, params)
        artifact = attempt_artifact(attempt, env, f"attempt 1 of {ctx.task.key}")
        changed = changes()
        metric = verify(ctx, attempt, artifact)
        summary = {**attempt_summary(attempt), **environment_record(env)}
    if changed is not None:
        summary["changed_files"] = changed
    return deliver(ctx, attempt, artifact, metric, {**extra, **summary})


@register_strategy("agent")
class Agent:
    """The baseline bash agent: one sample per turn, executed as it is.

    Params: `AgentParams` (step_limit, max_tokens, temperature, top_p, command_timeout_s,
    wall_time_s, templates, ...).
    """

    name: ClassVar[str] = "agent"
    #: every call is the generator's (SamplePolicy)
    roles = (GENERATOR_ROLE,)
    Params = AgentParams
    #: opens each attempt's environment (tests swap in a scripted double)
    environment_factory = staticmethod(terminal_environment)

    def __init__(self, params: AgentParams | None = None) -> None:
        self.params = params if params is not None else self.Params()

    def run(self, ctx: TrialContext) -> StrategyResult:
        return run_one(ctx, SamplePolicy(self.params), self.params,
                       self.environment_factory, {"n": 1})
