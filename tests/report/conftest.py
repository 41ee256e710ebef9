"""Run directories for report tests, written through the real RunStore.

Trials are TrialRecords built here (a scripted experiment's shape, with known
outcomes), so every number the report shows can be checked by hand.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tether.core.budget import BudgetSpec
from tether.core.observation import Defect, Observation
from tether.core.trial import ObservationRow, TrialRecord, TrialSpec
from tether.models.base import Usage
from tether.models.recording import CallRecord
from tether.runs.store import RunStore

HOSTILE = "<script>alert('x')</script>"


def png_bytes(color: str = "red") -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.add_patch(plt.Rectangle((0.2, 0.2), 0.5, 0.5, fill=False, color=color, lw=3))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=50)
    plt.close(fig)
    return buf.getvalue()


def make_record(index: int, task: str, seed: int, strategy: str, budget: int | None, *,
                passed: bool | None = None, n_defects: int | None = None,
                status: str = "ok", extra: dict | None = None,
                raw: dict | None = None, instrument: str = "scripted_check") -> TrialRecord:
    spec = TrialSpec(suite="toy", task_id=task, strategy=strategy,
                     models={"proposer": "scripted:[]"}, budget=BudgetSpec(total=budget),
                     seed=seed)
    metric = None
    if status != "error" and (passed is not None or n_defects is not None):
        defects = [Defect(kind="overlap", message=f"{HOSTILE} overlaps", location="#a")
                   for _ in range(n_defects or 0)]
        if passed is None:
            passed = not defects
        metric = Observation(instrument=instrument, version="2", grounded=True,
                             score=float(passed) if n_defects is None else float(n_defects),
                             passed=passed, defects=defects,
                             raw={**({"n_defects": n_defects} if n_defects is not None else {}),
                                  **(raw or {})})
    out_tokens = 100 if budget is None else budget // 5
    call = CallRecord(role="proposer", model_id="scripted", request_hash=f"{index:064x}",
                   sample_index=0, usage=Usage(input_tokens=50, output_tokens=out_tokens),
                   latency_s=0.01, cache_hit=index % 2 == 0,
                   messages=[{"role": "user", "content": f"solve {task} {HOSTILE}"}],
                   output=f"answer {HOSTILE}")
    observations = [ObservationRow(purpose="metric", artifact=None, observation=metric)] \
        if metric else []
    return TrialRecord(
        trial_id=spec.trial_id, index=index, spec=spec, status=status,
        error_kind="sandbox" if status == "error" else None,
        error_message="sandbox failed to start" if status == "error" else None,
        calls=[call], observations=observations, metric=metric,
        spend={"proposer": Usage(input_tokens=50, output_tokens=out_tokens)},
        extra=extra or {}, wall_s=0.5)


def _commit(run_dir: Path, records: list[TrialRecord], meta: dict | None = None) -> Path:
    with RunStore(run_dir, create=True) as store:
        store.write_config({"suites": ["toy"], "strategies": sorted({r.spec.strategy
                                                                     for r in records})})
        store.set_meta("tether", {"version": "0.1.0", "commit": "abc1234"})
        for key, value in (meta or {}).items():
            store.set_meta(key, value)
        for r in records:
            store.commit_trial(r)
    return run_dir


# Pass/fail run: 10 tasks x 2 seeds. single_shot passes tasks 0-2; self_loop at budget
# 500 passes tasks 0-5 except task 2 (one regression); at budget 1000 tasks 0-7, with
# one errored trial (task 9, seed 1) and one truncated trial (task 8, seed 0).
PASS_SINGLE = {0, 1, 2}
PASS_LOOP = {500: {0, 1, 3, 4, 5}, 1000: {0, 1, 2, 3, 4, 5, 6, 7}}


def pass_records() -> list[TrialRecord]:
    records = []
    for t in range(10):
        for seed in (0, 1):
            records.append(make_record(len(records), f"t{t}", seed, "single_shot", None,
                                       passed=t in PASS_SINGLE))
    for budget, passing in PASS_LOOP.items():
        for t in range(10):
            for seed in (0, 1):
                kw: dict = {"passed": t in passing,
                            "extra": {"single_shot_passed": t in PASS_SINGLE}}
                if budget == 1000 and (t, seed) == (9, 1):
                    kw = {"status": "error"}
                elif budget == 1000 and (t, seed) == (8, 0):
                    kw = {"status": "truncated", "extra": {"single_shot_passed": False}}
                records.append(make_record(len(records), f"t{t}", seed, "self_loop", budget,
                                           **kw))
    return records


@pytest.fixture
def pass_run(tmp_path: Path) -> Path:
    return _commit(tmp_path / "pass_run", pass_records())


@pytest.fixture(scope="session")
def pass_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pass run's report, written once for the tests that only read it."""
    from tether.report import build_report, write_report

    run = _commit(tmp_path_factory.mktemp("pass_report") / "run", pass_records())
    with RunStore.open(run) as store:
        return write_report(build_report(store), store, run.parent / "report.html")


@pytest.fixture
def defect_run(tmp_path: Path) -> Path:
    """Defect-count metric (geometry): single_shot vs reviewed, with overlay images."""
    run_dir = tmp_path / "defect_run"
    store = RunStore(run_dir, create=True)
    overlay = store.put_blob(png_bytes("red"), kind="overlay")
    shot = store.put_blob(png_bytes("blue"), kind="screenshot")
    store.close()
    records = []
    base = [5, 3, 4, 0, 2, 6]
    reviewed = [1, 3, 0, 1, 0, 2]
    for strategy, counts in (("single_shot", base), ("proposer_reviewer", reviewed)):
        for t, n in enumerate(counts):
            records.append(make_record(
                len(records), f"page{t}", 0, strategy, 2000, n_defects=n,
                instrument="geometry", raw={"overlay_digest": overlay,
                                            "screenshot_digest": shot}))
    return _commit(run_dir, records)
