"""A user's own scene folder: a .blend saved with bpy, a start program and ONLY a goal
image (renders/goal/render1.png). `tasks check` leaves the folder byte-identical (digests
go to the cache), and `tether run` with a `vetr` arm and a scripted VLM double scores it."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

pytest.importorskip("bpy")

from tether.cli.hub import main  # noqa: E402
from tether.systems.scene.tasks import bundled_tasks_dir, folder_hash, load_task  # noqa: E402


def _folder(tmp_path, scenes_cls):
    src = load_task(bundled_tasks_dir() / "placement_box_back")
    own = tmp_path / "my room"  # any name: the folder's name means nothing
    (own / "renders" / "goal").mkdir(parents=True)
    with scenes_cls(tmp_path / "build") as scenes:
        shutil.copyfile(scenes.base(src), own / "room.blend")
        png, _ = scenes.render(src, src.goal, src.render)
    (own / "renders" / "goal" / "render1.png").write_bytes(png)
    (own / "start.py").write_text(src.start)
    return own, src


def test_own_folder_checks_without_writes_and_runs_through_tether_run(tmp_path, monkeypatch,
                                                                      bwrap) -> None:
    from tether.systems.scene.scenes import TaskScenes

    monkeypatch.setenv("TETHER_CACHE", str(tmp_path / "cache"))
    own, src = _folder(tmp_path, TaskScenes)
    before = folder_hash(own)
    for _ in range(2):  # first records the digests in the cache, then compares with them
        r = CliRunner().invoke(main, ["scene", "tasks", "check", str(own), "--json"])
        assert r.exit_code == 0, r.output
    [row] = json.loads(r.output)
    assert row["ok"] and row["digests_from"].startswith(str(tmp_path / "cache"))
    assert folder_hash(own) == before  # byte-identical: nothing written into the folder
    script = json.dumps([f"ACTION: edit verify\n```python\n{src.goal}```", "Looks right.",
                         "ACTION: end"])
    config = tmp_path / "own.toml"
    config.write_text(f"""name = "own-scene"
suites = [{json.dumps("blendergym:" + str(own))}]
[models]
proposer = {json.dumps("scripted:" + script)}
[[strategies]]
name = "vetr"
params = {{refiner = "off", size = 64, samples = 4}}
[run]
concurrency = 1
""")
    out = tmp_path / "run"
    r = CliRunner().invoke(main, ["run", str(config), "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    from tether.runs.store import RunStore

    store = RunStore.open(out, readonly=True)
    [record] = store.trials()
    store.close()
    assert record.status == "ok" and record.extra["valid"], record
    # scored against the goal IMAGE: the goal program's render matches it
    assert record.metric.raw["goal"] == "image" and record.metric.score <= 1e-4
    assert record.extra["calls"]["verifier"] == 1  # the edit asked for the verifier
    assert folder_hash(own) == before
