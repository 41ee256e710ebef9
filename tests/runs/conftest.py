"""Small scripted experiments: a tether suite file, a config, and a store fingerprint."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tether.runs.store import RunStore

REPO = Path(__file__).resolve().parents[2]
#: answers with the prompt's last word plus its seed (tests/runs/scripted_models.py)
SCRIPTED = "scripted:tests.runs.scripted_models:echo_word"

#: (task id, word the scripted model says, word the scripted_check metric expects)
TASKS = [("t1", "alpha", "alpha"), ("t2", "beta", "gamma"), ("t3", "delta", "delta")]


def write_suite(path: Path, tasks: list[tuple[str, str, str]] = TASKS,
                metric: str = "scripted_check") -> Path:
    path.write_text(json.dumps([
        {"id": tid, "prompt": f"Say {word}", "metric": metric, "artifact_kind": "text",
         "data": {"expect": expect}} for tid, word, expect in tasks]))
    return path


def write_config(directory: Path, *, suite: str = "suite.json", extra: str = "",
                 models: str = SCRIPTED, seeds: str = "[0, 1]", concurrency: int = 2,
                 strategies: str = '[[strategies]]\nname = "single_shot"\n',
                 name: str = "exp.toml") -> Path:
    path = directory / name
    path.write_text(
        f'name = "scripted"\nsuites = ["tether:{suite}"]\nseeds = {seeds}\n{extra}\n'
        f"[models]\nproposer = '{models}'\n\n{strategies}\n"
        f'[run]\nconcurrency = {concurrency}\nsandbox = "subprocess"\n')
    return path


@pytest.fixture
def experiment(tmp_path: Path) -> Path:
    """A 3-task x 2-seed scripted experiment (6 trials) in tmp_path; returns the config."""
    write_suite(tmp_path / "suite.json")
    return write_config(tmp_path)


@pytest.fixture(autouse=True)
def _scripted_models_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    # Subprocesses and Ray workers import tests.runs.scripted_models from the checkout.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p))


def fingerprint(run_dir: Path) -> dict[str, Any]:
    """What a rerun must reproduce: per trial, its end state, artifact, metric, calls and
    observations (wall times, latencies and durations left out)."""
    with RunStore.open(run_dir) as store:
        out = {}
        for r in store.trials():
            metric = r.metric.model_dump(exclude={"duration_s"}) if r.metric else None
            out[r.trial_id] = {
                "index": r.index, "status": r.status, "error_kind": r.error_kind,
                "artifact": r.artifact, "metric": metric,
                "artifact_text": store.artifact_text(r.artifact) if r.artifact else None,
                "calls": [(c.role, c.request_hash, c.output, dataclasses.asdict(c.usage),
                           c.cache_hit) for c in r.calls],
                "observations": [(o.purpose, o.artifact, o.observation.score,
                                  o.observation.passed, o.observation.error)
                                 for o in r.observations],
                "spend": {k: dataclasses.asdict(v) for k, v in r.spend.items()},
            }
        return out
