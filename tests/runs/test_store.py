"""The run store: atomic trial rows, content-addressed artifacts, image evidence as blobs."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tether.core.artifact import Artifact
from tether.core.observation import Observation
from tether.core.trial import ObservationRow, TrialRecord, TrialSpec
from tether.errors import ConfigError
from tether.runs.store import RunStore

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def _record(obs: Observation, art: Artifact) -> TrialRecord:
    spec = TrialSpec(suite="s", task_id="t", strategy="single_shot",
                     models={"proposer": "scripted:[]"})
    return TrialRecord(trial_id=spec.trial_id, index=0, spec=spec, status="ok",
                       observations=[ObservationRow(purpose="metric", artifact=art.digest,
                                                    observation=obs)],
                       artifact=art.digest, artifact_kind=art.kind, metric=obs)


def test_inline_png_evidence_becomes_a_blob(tmp_path: Path) -> None:
    art = Artifact(kind="html", text="<p>x</p>")
    obs = Observation(instrument="geometry", version="1", grounded=True, score=1.0,
                      raw={"overlay_png_b64": base64.b64encode(PNG).decode(), "n": 1})
    with RunStore(tmp_path / "run", create=True) as store:
        store.commit_trial(_record(obs, art), [art])
        (rec,) = store.trials()
        raw = rec.observations[0].observation.raw
        assert "overlay_png_b64" not in raw and rec.metric is not None
        digest = raw["overlay_digest"]
        assert rec.metric.raw["overlay_digest"] == digest
        path = store.artifact_path(digest)
        assert path is not None and path.suffix == ".png" and path.read_bytes() == PNG
        assert store.artifact_text(art.digest) == "<p>x</p>"


def test_recommit_replaces_and_never_duplicates(tmp_path: Path) -> None:
    art = Artifact(kind="program", text="x = 1\n")
    obs = Observation(instrument="scripted_check", version="1", grounded=True, score=0.0)
    with RunStore(tmp_path / "run", create=True) as store:
        rec = _record(obs, art)
        store.commit_trial(rec.model_copy(update={"status": "error"}), [art])
        store.commit_trial(rec, [art])
        assert [r.status for r in store.trials()] == ["ok"]
        assert store.statuses() == {rec.trial_id: "ok"}
        # the log keeps both ends, in order: the last line is the one that counts
        lines = (tmp_path / "run" / "trials.jsonl").read_text().splitlines()
        assert [TrialRecord.model_validate_json(line).status for line in lines] == [
            "error", "ok"]
        assert TrialRecord.model_validate_json(lines[-1]) == rec


def test_opening_a_directory_that_is_not_a_run_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a run directory"):
        RunStore.open(tmp_path)


def test_tether_report_leaves_no_file_beside_the_store(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from tether.cli import main

    config = tmp_path / "c.toml"
    config.write_text('name = "ro"\nsuites = ["code"]\nlimit = 2\nseeds = 1\n[models]\n'
                      'proposer = "scripted:[\\"```python\\\\nx = 1\\\\n```\\"]"\n'
                      '[[strategies]]\nname = "single_shot"\n')
    run_dir = tmp_path / "run"
    ran = CliRunner().invoke(main, ["run", str(config), "--out", str(run_dir), "--json"])
    assert ran.exit_code == 0, ran.output
    before = sorted(p.name for p in run_dir.iterdir())
    assert not [n for n in before if n.endswith(("-wal", "-shm"))]
    reported = CliRunner().invoke(main, ["report", str(run_dir), "--json",
                                         "--out", str(tmp_path / "r.html")])
    assert reported.exit_code == 0, reported.output
    assert json.loads(reported.output[reported.output.index("{"):])
    assert sorted(p.name for p in run_dir.iterdir()) == before


def test_threads_storing_the_same_blob_at_once_all_succeed(tmp_path: Path) -> None:
    """Two items of a pool with the same answer commit the same content-addressed blob
    at once: each writes a temporary file of its own, so none moves another's away."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    start = threading.Barrier(8, timeout=30)
    data = b"the same answer" * 4096

    def put(store: RunStore) -> str:
        start.wait()
        return store.put_blob(data, kind="text", media_type="text/plain")

    with RunStore(tmp_path / "run", create=True) as store, \
            ThreadPoolExecutor(max_workers=8) as pool:
        digests = set(pool.map(lambda _: put(store), range(8)))
        [digest] = digests
        path = store.artifact_path(digest)
        assert path is not None and path.read_bytes() == data
    assert not list((tmp_path / "run" / "artifacts").glob("*/*.tmp"))
