"""Running one trial: build its models and strategy, run it, score what it delivered.

The score always comes from the task's metric instrument (invariant 1), whatever
the strategy used as feedback. Failures are sorted into end states: a model,
sandbox or instrument failure is `error` with its kind (invariant 6, never a
score), the model running out of budget or being cut off are outcomes of their own.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tether.context import ProgressSink, TrialContext
from tether.core import Artifact, BudgetExhausted, Task, TrialRecord, TrialSpec, Truncated
from tether.errors import TetherError
from tether.instruments import InstrumentEnv
from tether.models import Model, parse_model
from tether.strategies import StrategyResult, build_strategy

ModelFactory = Callable[[str], Model]


def run_trial(spec: TrialSpec, task: Task, *, index: int = 0,
              model_factory: ModelFactory = parse_model,
              env: InstrumentEnv | None = None,
              progress: ProgressSink | None = None) -> tuple[TrialRecord, dict[str, Artifact]]:
    """Run one trial to its end state. Returns the record and the artifacts it made.

    Never raises for a failure inside the trial: those become the record's end state.
    `progress` receives the trial's progress events as they happen (see TrialContext).
    """
    start, started_at = time.monotonic(), time.time()
    status, error_kind, error_message = "ok", None, None
    result = StrategyResult(artifact=None)
    ctx: TrialContext | None = None
    try:
        models = {role: model_factory(s) for role, s in spec.models.items()}
        ctx = TrialContext(spec, task, models, env, progress)
        strategy = build_strategy(spec.strategy, spec.strategy_params)
        result = strategy.run(ctx)
        status = result.status
        if status == "error":  # a strategy that caught an infrastructure failure says which
            error_kind = result.extra.get("error_kind")
            error_message = result.extra.get("error_message")
    except BudgetExhausted as exc:
        status, error_message = "budget_exhausted", str(exc)
    except Truncated as exc:
        status, error_message = "truncated", str(exc)
    except TetherError as exc:
        status, error_kind, error_message = "error", type(exc).__name__, str(exc)
    except Exception as exc:  # noqa: BLE001 - a harness bug is recorded, the run goes on
        status, error_kind = "error", f"harness:{type(exc).__name__}"
        error_message = str(exc) or repr(exc)

    metric = None
    if ctx is not None and result.artifact is not None and status != "error":
        try:
            metric = ctx.metric(result.artifact)
        except TetherError as exc:  # e.g. the task names an unknown metric instrument
            status, error_kind, error_message = "error", type(exc).__name__, str(exc)
        else:
            if metric.error:
                status, error_kind, error_message = "error", "instrument", metric.error
    if ctx is not None and ctx.ledger.exhausted and status == "ok":
        status = "budget_exhausted"

    record = TrialRecord(
        trial_id=spec.trial_id, index=index, spec=spec, status=status,
        error_kind=error_kind, error_message=error_message,
        calls=list(ctx.calls) if ctx else [],
        observations=list(ctx.observations) if ctx else [],
        artifact=result.artifact.digest if result.artifact else None,
        artifact_kind=result.artifact.kind if result.artifact else None,
        metric=metric,
        spend=dict(ctx.ledger.spent) if ctx else {},
        extra=result.record_extra(),
        wall_s=time.monotonic() - start,
        started_at=started_at,
    )
    artifacts = dict(ctx.artifacts) if ctx else {}
    if result.artifact is not None:
        artifacts.setdefault(result.artifact.digest, result.artifact)
    return record, artifacts
