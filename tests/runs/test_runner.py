"""The runner in-process: concurrency, commits, resume selection, reproducibility, cache."""

from __future__ import annotations

import threading
from pathlib import Path

from tether.core.trial import TrialRecord
from tether.runs.expansion import PlannedTrial
from tether.runs.launch import RunRequest, execute, prepare
from tether.runs.runner import LocalExecutor, harness_error, pending
from tether.runs.store import RunStore

from .conftest import fingerprint, write_config, write_suite


def _run(config: Path, out: Path, **kw) -> tuple:
    run = prepare(RunRequest(config=str(config), out=str(out), **kw))
    result = execute(run)
    run.store.close()
    return run, result


def test_run_commits_every_trial_with_its_metric(experiment: Path, tmp_path: Path) -> None:
    run, result = _run(experiment, tmp_path / "run")
    assert not result.interrupted and result.committed_now == 6
    recs = result.records
    assert [r.index for r in recs] == list(range(6))
    assert {r.spec.task_id: r.passed for r in recs} == {"t1": True, "t2": False, "t3": True}
    for r in recs:
        assert r.status == "ok" and r.metric is not None and r.metric.instrument == "scripted_check"
        assert len(r.calls) == 1 and r.calls[0].role == "proposer"
        assert [o.purpose for o in r.observations] == ["metric"]
    # the two seeds of a task are different samples (their seeds reach the model)
    t1 = [r for r in recs if r.spec.task_id == "t1"]
    assert t1[0].calls[0].output != t1[1].calls[0].output
    assert t1[0].calls[0].request_hash != t1[1].calls[0].request_hash
    store = RunStore.open(tmp_path / "run")
    assert (tmp_path / "run" / "trials.jsonl").read_text().count("\n") == 6
    assert (tmp_path / "run" / "config.resolved.json").is_file()
    assert store.meta("tether")["version"]
    assert set(store.meta("tasks")) == {"suite/t1", "suite/t2", "suite/t3"}
    assert store.meta("model_ids") == ["scripted:tests.runs.scripted_models:echo_word"]
    assert store.meta("ended")["interrupted"] is False


def test_rerun_reproduces_the_store(experiment: Path, tmp_path: Path) -> None:
    _run(experiment, tmp_path / "a")
    _run(experiment, tmp_path / "b")
    a, b = fingerprint(tmp_path / "a"), fingerprint(tmp_path / "b")
    assert a == b and len(a) == 6


def test_resolved_config_reruns_verbatim(experiment: Path, tmp_path: Path) -> None:
    _run(experiment, tmp_path / "a")
    _run(tmp_path / "a" / "config.resolved.json", tmp_path / "b")
    assert fingerprint(tmp_path / "a") == fingerprint(tmp_path / "b")


def _planned(n: int) -> list[PlannedTrial]:
    from tether.core.task import Task
    from tether.core.trial import TrialSpec

    task = Task(id="t", suite="s", prompt="p", metric="scripted_check")
    return [PlannedTrial(i, TrialSpec(suite="s", task_id="t", strategy="single_shot",
                                      models={"proposer": "x"}, seed=i), task)
            for i in range(n)]


#: how long a synchronising test waits for an event that should come at once: only a
#: broken executor ever waits this long (a hang guard, not a measure of speed)
HANG_S = 30


def test_local_executor_keeps_n_in_flight() -> None:
    # Each trial waits at a 4-party barrier: the run only gets through if 4 trials are in
    # flight together, and the in-flight count says it never went above 4.
    live, peak, lock = 0, 0, threading.Lock()
    together = threading.Barrier(4, timeout=HANG_S)

    def trial(p: PlannedTrial):
        nonlocal live, peak
        with lock:
            live += 1
            peak = max(peak, live)
        try:
            together.wait()
        except threading.BrokenBarrierError:
            pass  # fewer than 4 in flight: reported below, after the run
        with lock:
            live -= 1
        return harness_error(p, RuntimeError("x"))

    out = list(LocalExecutor(4, trial).results(_planned(12), threading.Event()))
    assert len(out) == 12 and peak == 4
    assert not together.broken


def test_stop_abandons_in_flight_trials() -> None:
    stop, started, release, finished = (threading.Event() for _ in range(4))

    def blocking(p: PlannedTrial):
        started.set()
        release.wait(HANG_S)  # held until the driver has returned
        finished.set()
        return harness_error(p, RuntimeError("late"))

    def stop_once_started() -> None:
        started.wait(HANG_S)
        stop.set()

    results = LocalExecutor(2, blocking).results(_planned(3), stop)
    threading.Thread(target=stop_once_started, daemon=True).start()
    assert list(results) == []  # nothing yielded once stopped: in-flight work is dropped
    assert started.is_set()
    assert not finished.is_set()  # the driver returned without waiting for the trial
    release.set()


def test_pending_skips_finished_and_retries_errors_on_request(experiment: Path) -> None:
    from tether.runs.config import load_experiment
    from tether.runs.expansion import expand, load_tasks

    exp = load_experiment(experiment)
    planned = expand(exp, load_tasks(exp))
    ids = [p.spec.trial_id for p in planned]
    statuses = {ids[0]: "ok", ids[1]: "error", ids[2]: "budget_exhausted", ids[3]: "truncated"}
    assert [p.index for p in pending(planned, statuses)] == [4, 5]
    assert [p.index for p in pending(planned, statuses, retry_errors=True)] == [1, 4, 5]


def test_resume_runs_only_missing_trials(experiment: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    run = prepare(RunRequest(config=str(experiment), out=str(out)))
    run.todo = run.todo[:2]  # as if the run died after two trials
    execute(run)
    run.store.close()
    resumed = prepare(RunRequest(resume=str(out)))
    assert [p.index for p in resumed.todo] == [2, 3, 4, 5]
    result = execute(resumed)
    assert result.committed_now == 4 and len(result.records) == 6
    resumed.store.close()
    again = prepare(RunRequest(resume=str(out)))
    assert again.todo == []
    _run(experiment, tmp_path / "whole")
    assert fingerprint(out) == fingerprint(tmp_path / "whole")


def test_cache_serves_a_rerun_and_keeps_samples_distinct(experiment: Path,
                                                         tmp_path: Path) -> None:
    cache = tmp_path / "responses.sqlite"
    overrides = {"cache": "readwrite", "cache_file": str(cache)}
    _run(experiment, tmp_path / "a", overrides=overrides)
    _, second = _run(experiment, tmp_path / "b", overrides=overrides)
    assert all(c.cache_hit for r in second.records for c in r.calls)
    fa, fb = fingerprint(tmp_path / "a"), fingerprint(tmp_path / "b")
    strip = lambda f: {k: {**v, "calls": [c[:4] for c in v["calls"]]} for k, v in f.items()}  # noqa: E731
    assert strip(fa) == strip(fb)
    outputs = {r.calls[0].output for r in second.records}
    assert len(outputs) == 6  # six trials, six distinct cached samples (seed in each)


def test_errored_trials_are_recorded_not_scored(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json", tasks=[("ok", "alpha", "alpha"),
                                                ("down", "model-down", "x")])
    cfg = write_config(tmp_path, seeds="[0]")
    _, result = _run(cfg, tmp_path / "run")
    by_task: dict[str, TrialRecord] = {r.spec.task_id: r for r in result.records}
    assert by_task["ok"].status == "ok"
    down = by_task["down"]
    assert down.status == "error" and down.error_kind == "ModelError"
    assert down.passed is None and down.score is None and down.metric is None
    assert result.errored == 1


def test_the_run_lets_its_metric_instruments_get_ready_first(
        experiment: Path, tmp_path: Path, monkeypatch) -> None:
    import tether.runs.launch as launch

    ready: list[tuple[str, str, int]] = []
    monkeypatch.setattr(launch, "warm_up", lambda spec, env, n: ready.append(
        (spec, env.sandbox, n)))
    run, result = _run(experiment, tmp_path / "run")
    assert result.committed_now == 6
    deadline = threading.Event()
    for _ in range(100):  # the warm-up runs beside the first trials, on its own thread
        if ready:
            break
        deadline.wait(0.02)
    assert ready == [("scripted_check", run.options.sandbox,
                      min(run.options.concurrency, 6))]
