"""The report's scene section on a synthetic run: means over valid trials only, the
paired comparison on jointly valid tasks, refiner statistics, embedded renders."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.report.conftest import make_record, png_bytes
from tether.core.artifact import Artifact
from tether.report.data import build_report
from tether.report.html import write_report
from tether.runs.store import RunStore
from tether.systems.scene.loop.facts import SceneFacts

PNG = base64.b64encode(png_bytes("blue")).decode("ascii")


def _record(index: int, task: int, strategy: str, pl: float | None, ssim: float):
    kept = Artifact(kind="png_b64", text=PNG)
    valid = pl is not None
    facts = SceneFacts(
        scene_strategy=strategy, valid=valid, invalid_reason=None if valid else "no_render",
        family="placement" if task % 2 else "material", interactions=2,
        calls={"generator": 2, "verifier": 1}, executions=3, renders=3,
        submissions=[{"accepted": "raw" if strategy == "vetr" else "previous",
                      "executions": 1 if strategy == "vetr" else 2}],
        renders_kept={"start": kept.digest, "goal": kept.digest,
                      **({"delivered": kept.digest} if valid else {})}, wall_s=1.0)
    raw = {"pl": pl, "psnr": 20.0, "ssim": ssim, "edge_f1": 0.5} if valid else None
    rec = make_record(index, f"t{task}", 0, strategy, None, passed=False if valid else None,
                      extra=facts.to_extra(), raw=raw, instrument="scene_render")
    return rec, kept


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[dict, str]:
    run = tmp_path_factory.mktemp("scene-run")
    rows = [_record(i, i, "vetr", None if i == 6 else 0.01, 0.9) for i in range(7)]
    rows += [_record(10 + i, i, "scene_one_shot", 0.02, 0.8) for i in range(7)]
    with RunStore(run, create=True) as store:
        store.write_config({"suites": ["scene"], "strategies": ["vetr", "scene_one_shot"]})
        for rec, kept in rows:
            store.commit_trial(rec, [kept])
    with RunStore(run) as store:
        rep = build_report(store)
        html = write_report(rep, store, Path(run) / "report.html").read_text()
    return rep.numbers["scene"], html


def test_means_leave_invalid_trials_out_and_count_them(report) -> None:
    scene, _ = report
    rows = {r["arm"]: r for r in scene["summary"]}
    assert rows["vetr"]["valid"] == 6 and rows["vetr"]["invalid"] == {"no_render": 1}
    assert rows["vetr"]["overall"]["pl"] == pytest.approx(0.01)
    assert rows["scene_one_shot"]["valid"] == 7
    assert set(rows["vetr"]["families"]) == {"placement", "material"}


def test_paired_comparison_on_jointly_valid_tasks(report) -> None:
    scene, _ = report
    (pair,) = scene["paired"]
    pl = pair["cells"]["pl"]
    sign = 1 if pair["first"] == "vetr" else -1
    assert pl["n"] == 6 and (pl["wins"], pl["losses"], pl["ties"]) == (
        (6, 0, 0) if sign == 1 else (0, 6, 0))
    assert pl["p"] == pytest.approx(0.03125)  # exact sign test, 6 of 6
    assert pl["estimate"] == pytest.approx(50.0 if sign == 1 else -100.0)
    assert pl["significant"]
    assert pair["cells"]["ssim"]["estimate"] == pytest.approx(12.5 if sign == 1 else -100 / 9)
    psnr = pair["cells"]["psnr"]
    assert psnr["estimate"] == 0.0 and psnr["ties"] == 6 and not psnr["significant"]


def test_refiner_statistics_and_embedded_renders(report) -> None:
    scene, html = report
    refiner = {r["arm"]: r for r in scene["refiner"]}
    assert refiner["vetr"]["raw"] == 7 and refiner["vetr"]["executions_per_submission"] == 1
    assert refiner["scene_one_shot"]["previous"] == 7
    assert "Scene programs (VETR)" in html
    assert html.count(f"data:image/png;base64,{PNG}") == 7 * 2 + 13  # start+goal, delivered
    assert "invalid: no_render" in html
