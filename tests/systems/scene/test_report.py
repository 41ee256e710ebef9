"""The report's scene section on a synthetic run: means over valid trials only, invalid
trials counted by reason in every table, N-CLIP / LPIPS / CLIP where trials have them,
the Eq. 9 / Eq. 5 improvement columns, levels, paired comparisons (overall and per
family) with the run's resampling setting, refiner statistics, embedded renders."""

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


def _record(index: int, task: int, strategy: str, pl: float | None, ssim: float,
            n_clip: float | None = None, level: str | None = None, failed: bool = False):
    """A scene trial; `failed`: delivered (valid facts) but the metric could not render it."""
    kept = Artifact(kind="png_b64", text=PNG)
    valid = pl is not None
    facts = SceneFacts(
        scene_strategy=strategy, valid=valid, invalid_reason=None if valid else "no_render",
        family="placement" if task % 2 else "material", level=level, interactions=2,
        calls={"generator": 2, "verifier": 1}, executions=3, renders=3,
        settings={"projection_scope": "paper"} if strategy == "vetr" else {},
        submissions=[{"accepted": "raw" if strategy == "vetr" else "previous",
                      "executions": 1 if strategy == "vetr" else 2}],
        renders_kept={"start": kept.digest, "goal": kept.digest,
                      **({"delivered": kept.digest} if valid else {})}, wall_s=1.0)
    raw = None
    if pl is not None:
        raw = {"pl": pl, "psnr": 20.0, "ssim": ssim, "edge_f1": 0.5,
               "n_clip": "unavailable" if n_clip is None else n_clip,
               "lpips": "unavailable" if n_clip is None else n_clip / 2}
    rec = make_record(index, f"t{task}", 0, strategy, None, passed=False if valid else None,
                      extra=facts.to_extra(), raw=raw, instrument="scene_render")
    if failed:  # the metric's fresh execution of the delivered program failed
        from tether.core import Defect

        failure = Defect(kind="execution_raised", message="KeyError", location="line 3")
        rec = make_record(index, f"t{task}", 0, strategy, None, passed=False,
                          extra=facts.to_extra(), raw={}, instrument="scene_render")
        rec.metric = rec.metric.model_copy(update={"defects": [failure], "score": 1.0})
    return rec, kept


def _report(run: Path, rows: list, config: dict | None = None) -> tuple[dict, str]:
    with RunStore(run, create=True) as store:
        store.write_config({"suites": ["scene"], **(config or {})})
        for rec, kept in rows:
            store.commit_trial(rec, [kept])
    with RunStore(run) as store:
        rep = build_report(store)
        html = write_report(rep, store, Path(run) / "report.html").read_text()
    return rep.numbers["scene"], html


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[dict, str]:
    rows = [_record(i, i, "vetr", None if i == 6 else 0.01, 0.9) for i in range(7)]
    rows += [_record(10 + i, i, "scene_one_shot", 0.02, 0.8) for i in range(7)]
    return _report(tmp_path_factory.mktemp("scene-run"), rows)


def test_means_leave_invalid_trials_out_and_count_them(report) -> None:
    scene, html = report
    rows = {r["arm"]: r for r in scene["summary"]}
    vetr = rows["vetr"]["overall"]
    assert vetr["valid"] == 6 and vetr["invalid"] == {"no_render": 1} and vetr["n"] == 7
    assert vetr["means"]["pl"] == pytest.approx(0.01)
    assert rows["vetr"]["families"]["material"]["invalid"] == {"no_render": 1}
    assert rows["vetr"]["families"]["placement"]["invalid"] == {}
    assert rows["scene_one_shot"]["overall"]["valid"] == 7
    assert set(rows["vetr"]["families"]) == {"placement", "material"}
    # no trial measured N-CLIP: those columns are left out, and the page says why
    assert [m["key"] for m in scene["metrics"]] == ["pl", "psnr", "ssim", "edge_f1"]
    assert "N-CLIP, LPIPS and CLIP are not shown" in html


def test_improvement_against_one_shot_over_pl_only_without_n_clip(report) -> None:
    scene, html = report
    assert scene["improvement_baseline"] == "scene_one_shot"
    vetr = next(r for r in scene["summary"] if r["arm"] == "vetr")
    impr = vetr["impr_families"]
    assert impr["metrics"] == ["pl"] and impr["cells"] == 2
    assert impr["value"] == pytest.approx(50.0)  # 1 - 0.01 / 0.02 in both families
    assert "Impr vs scene_one_shot (Eq. 9)" in html and "50% <span class=\"sub\">(PL only)" in html
    assert scene["levels"] == [] and "By level" not in html


def test_paired_comparison_on_jointly_valid_tasks(report) -> None:
    scene, html = report
    (pair,) = scene["paired"]
    pl = pair["cells"]["pl"]
    sign = 1 if pair["first"] == "vetr" else -1
    assert pl["n"] == 6 and pl["excluded"] == 1 and (pl["wins"], pl["losses"], pl["ties"]) == (
        (6, 0, 0) if sign == 1 else (0, 6, 0))
    assert pl["p"] == pytest.approx(0.03125)  # exact sign test, 6 of 6
    assert pl["estimate"] == pytest.approx(50.0 if sign == 1 else -100.0)
    assert pl["significant"]
    assert pair["cells"]["ssim"]["estimate"] == pytest.approx(12.5 if sign == 1 else -100 / 9)
    psnr = pair["cells"]["psnr"]
    assert psnr["estimate"] == 0.0 and psnr["ties"] == 6 and not psnr["significant"]
    assert pair["cells"]["n_clip"] is None  # never measured
    fam = pair["families"]["material"]["pl"]  # t0, t2, t4 valid for both; t6 not
    assert fam["n"] == 3 and fam["excluded"] == 1
    assert scene["n_resamples"] == 10_000 and "10000 resamples, seed 0" in html
    assert "(+1 invalid)" in html and "Paired comparisons per family" in html


def test_refiner_statistics_and_embedded_renders(report) -> None:
    scene, html = report
    refiner = {r["arm"]: r for r in scene["refiner"]}
    assert refiner["vetr"]["raw"] == 7 and refiner["vetr"]["executions_per_submission"] == 1
    assert refiner["vetr"]["projection_scope"] == "paper"
    assert refiner["scene_one_shot"]["previous"] == 7
    assert refiner["scene_one_shot"]["projection_scope"] is None
    assert "Scene programs (VETR)" in html
    assert html.count(f"data:image/png;base64,{PNG}") == 7 * 2 + 13  # start+goal, delivered
    assert "invalid: no_render" in html


def test_learned_metrics_levels_eq5_and_the_papers_resample_count(tmp_path) -> None:
    """N-CLIP where trials measured it, CLIP = 1 - N-CLIP, LPIPS; BlenderBench-like levels
    with Eq. 5; an execution that failed when scored counted as such; 5,000 resamples."""
    rows = []
    for i in range(6):
        level = str(1 + i % 3)
        rows.append(_record(i, i, "scene_one_shot", 0.04, 0.8, n_clip=0.2, level=level))
        rows.append(_record(10 + i, i, "vetr", 0.01, 0.9, n_clip=0.1, level=level,
                            failed=i == 5))
    scene, html = _report(tmp_path / "run", rows, {"stats": {"n_resamples": 5000, "seed": 0}})
    assert [m["key"] for m in scene["metrics"]] == [
        "pl", "n_clip", "psnr", "ssim", "edge_f1", "lpips", "clip"]
    vetr = next(r for r in scene["summary"] if r["arm"] == "vetr")
    assert vetr["overall"]["invalid"] == {"execution_failed": 1}
    assert vetr["overall"]["means"]["clip"] == pytest.approx(0.9)
    assert vetr["overall"]["means"]["lpips"] == pytest.approx(0.05)
    assert scene["levels"] == ["1", "2", "3"] and vetr["levels"]["3"]["valid"] == 1
    for impr in (vetr["impr_families"], vetr["impr_levels"]):  # (1 - .01/.04 + 1 - .1/.2) / 2
        assert impr["metrics"] == ["n_clip", "pl"] and impr["value"] == pytest.approx(62.5)
    assert vetr["impr_levels"]["cells"] == 6 and vetr["impr_families"]["cells"] == 4
    (pair,) = scene["paired"]
    sign = 1 if pair["first"] == "vetr" else -1
    assert pair["cells"]["n_clip"]["n"] == 5 and pair["cells"]["n_clip"]["estimate"] == \
        pytest.approx(50.0 if sign == 1 else -100.0)
    assert pair["cells"]["clip"]["estimate"] == pytest.approx(
        100 * (0.9 - 0.8) / 0.8 if sign == 1 else 100 * (0.8 - 0.9) / 0.9)
    assert scene["n_resamples"] == 5000 and "5000 resamples, seed 0" in html
    for text in ("<th>N-CLIP</th>", "<th>LPIPS</th>", "<th>CLIP</th>", "By level",
                 "Improvement vs scene_one_shot (Eq. 5)", "execution_failed 1", "N-CLIP 0.1<"):
        assert text in html, text
