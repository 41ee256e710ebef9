"""Rescoring: the delivered artifacts of a finished run, scored by another instrument.

No strategy model is called. A model-backed metric (`screenshot_judge;model=SPEC`)
calls through a `generate` bound to a rescoring log: its calls are recorded under the
role `metric` and stored with the rescored trial, like every call of a trial. The new
run holds copies of the original trials (same ids and
specs, so `tether report --compare` pairs them) whose metric is the new
instrument's observation. The original run's metric observations stay in each
record, relabelled `metric:original`, and `extra["rescored_from"]` keeps the old
verdict, so the two scores can be set side by side from either run.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path

from tether.core import Observation, ObservationRow, Task, TrialRecord
from tether.errors import ConfigError
from tether.instruments import Instrument, InstrumentEnv, build_instrument, observe_safely
from tether.models import CallRecord
from tether.runs.standalone_generate import recorded_generate
from tether.runs.store import RunStore

ORIGINAL = "metric:original"


def stored_tasks(store: RunStore) -> dict[str, Task]:
    """The run's tasks by key: kept in the store by `tether run`, else reloaded from its config."""
    rows = store.meta("tasks")
    if rows:
        return {key: Task.model_validate(t) for key, t in rows.items()}
    from tether.runs.config import experiment_from_dict
    from tether.runs.expansion import load_tasks

    # what the run ran, read back: a run from before configs were strict still rescores
    exp = experiment_from_dict(store.config(), str(store.dir / "config.resolved.json"),
                               check_roles=False)
    return {t.key: t for t in load_tasks(exp)}


def _summary(obs: Observation | None) -> dict[str, object] | None:
    if obs is None:
        return None
    return {"instrument": obs.instrument, "version": obs.version, "score": obs.score,
            "passed": obs.passed, "error": obs.error}


def rescore_record(record: TrialRecord, task: Task | None, store: RunStore,
                   instrument: Instrument, metric_spec: str,
                   env: InstrumentEnv) -> TrialRecord:
    """A copy of `record` whose metric is `instrument`'s observation of its artifact."""
    rows = [ObservationRow(purpose=ORIGINAL, artifact=o.artifact, observation=o.observation)
            if o.purpose == "metric" else o for o in record.observations]
    update: dict[str, object] = {
        "observations": rows,
        "extra": {**record.extra, "rescored_from": {
            "run": str(store.dir.resolve()), "status": record.status,
            "metric": _summary(record.metric)}},
    }
    if record.artifact is None or (record.status == "error"
                                   and record.error_kind != "instrument"):
        # Nothing was delivered, or the trial failed before its metric: nothing to score.
        return record.model_copy(update={**update, "metric": None}, deep=True)
    artifact = store.artifact(record.artifact)
    if artifact is None or task is None:
        what = "artifact blob" if artifact is None else f"task {record.spec.task_key}"
        return record.model_copy(update={
            **update, "metric": None, "status": "error", "error_kind": "harness:rescore",
            "error_message": f"{what} not found in {store.dir}"}, deep=True)
    log: list[CallRecord] = []
    bound = replace(env, generate=recorded_generate(log, role="metric"))
    obs = observe_safely(instrument, artifact, task.model_copy(update={"metric": metric_spec}),
                         bound)
    rows.append(ObservationRow(purpose="metric", artifact=record.artifact, observation=obs))
    update["metric"] = obs
    update["calls"] = [*record.calls, *log]
    if obs.error:
        update.update(status="error", error_kind="instrument", error_message=obs.error)
    elif record.status == "error":  # the original metric had failed; this one did not
        update.update(status="ok", error_kind=None, error_message=None)
    return record.model_copy(update=update, deep=True)


def rescore_run(src: RunStore, dst: RunStore, metric_spec: str, *,
                env: InstrumentEnv, concurrency: int = 4,
                on_done: Callable[[TrialRecord], None] | None = None) -> list[TrialRecord]:
    """Rescore every trial of `src` into `dst` (committed one by one as they finish)."""
    instrument = build_instrument(metric_spec)
    trials = src.trials()
    if not trials:
        raise ConfigError(f"{src.dir} holds no trials to rescore",
                          hint="run the experiment first (tether run CONFIG)")
    tasks = stored_tasks(src)
    dst.write_config(src.config())
    for key in ("tasks", "tether", "models"):
        if src.meta(key) is not None:
            dst.set_meta(key, src.meta(key))
    dst.set_meta("rescored_from", str(Path(src.dir).resolve()))
    dst.set_meta("rescore_metric", metric_spec)
    dst.copy_artifacts_from(src)
    out: list[TrialRecord] = []
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = [pool.submit(rescore_record, r, tasks.get(r.spec.task_key), src, instrument,
                               metric_spec, env) for r in trials]
        for fut in as_completed(futures):
            rec = fut.result()
            dst.commit_trial(rec)
            out.append(rec)
            if on_done is not None:
                on_done(rec)
    return sorted(out, key=lambda r: r.index)
