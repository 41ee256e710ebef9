"""The Ray executor on a local 2-CPU cluster gives the same store as the local executor.

One cluster for the module (Ray starts slowly on 2 cores); workers import the
scripted test model from the checkout through PYTHONPATH, set before the cluster
starts so its worker processes inherit it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tether.runs.launch import RunRequest, execute, prepare

from .conftest import REPO, fingerprint, write_config, write_suite

pytestmark = pytest.mark.ray

ray = pytest.importorskip("ray", reason="the Ray executor needs the `ray` extra "
                                        "(pip install -e '.[ray]'; scripts/setup.sh installs it)")


def test_unreachable_ray_address_fails_fast_and_keeps_the_run(experiment: Path,
                                                              tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tether.cli import main

    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", str(experiment), "--out", str(out), "--executor",
                                    "ray", "--ray-address", "127.0.0.1:1"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "no Ray cluster answers at 127.0.0.1:1" in res.output
    assert f"tether run --resume {out}" in res.output
    assert not ray.is_initialized()


@pytest.fixture(scope="module")
def cluster():
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), old) if p)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield
    ray.shutdown()
    if old is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = old


def _run(cfg: Path, out: Path, executor: str) -> None:
    run = prepare(RunRequest(config=str(cfg), out=str(out), overrides={"executor": executor}))
    result = execute(run, stop=threading.Event())
    run.store.close()
    assert not result.interrupted


def test_ray_and_local_executors_give_the_same_store(cluster, tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json", tasks=[("t1", "alpha", "alpha"), ("t2", "beta", "x"),
                                                ("down", "model-down", "x")])
    cfg = write_config(tmp_path, extra='budgets = [3, 50]')
    _run(cfg, tmp_path / "local", "local")
    _run(cfg, tmp_path / "ray", "ray")
    local, remote = fingerprint(tmp_path / "local"), fingerprint(tmp_path / "ray")
    assert len(remote) == 12
    assert remote == local
    statuses = {v["status"] for v in remote.values()}
    assert statuses == {"ok", "error"}  # the errored trials crossed the boundary as records
