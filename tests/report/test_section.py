"""Report sections through the registry (report/section.py): a run that fills every
section (tests/report/sections_run.py) reports each with its numbers, in the JSON and on
the page, and a section registered from outside the hub shows without a hub edit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from tests.report.sections_run import sections_run
from tether.cli.hub import main
from tether.report import build_report, write_report
from tether.report.section import (
    SECTIONS,
    Section,
    SectionInput,
    register_section,
    sections,
    validated,
)
from tether.runs.store import RunStore

BODY = ["agents", "judged", "scene", "scene_demo"]
END = ["interventions", "harness_builds"]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sections_run(tmp_path_factory.mktemp("sections") / "run")


@pytest.fixture(scope="module")
def written(run: Path) -> tuple[dict, str]:
    with RunStore.open(run, readonly=True) as store:
        report = build_report(store)
        html = write_report(report, store, run.parent / "report.html").read_text()
    return report.numbers, html


def test_the_sections_are_registered_in_page_order() -> None:
    assert [s.name for s in sections("body")] == BODY
    assert [s.name for s in sections("end")] == END
    for s in sections():
        assert issubclass(s.numbers_model, BaseModel) and s.template.endswith(".j2")


def test_every_section_has_its_numbers(written: tuple[dict, str]) -> None:
    numbers, _ = written
    # arms carry the model setup: the scene and harness records use other models
    agents = {r["arm"].split(" @ ")[0]: r for r in numbers["agents"]["rows"]}
    # seed 0 of both tasks passes under agent; turn_bon passes all four (agent_runs.py)
    assert agents["agent"]["end_states"]["pass"] == 2
    assert agents["turn_bon"]["end_states"]["pass"] == 4
    assert [b["name"] for b in numbers["judged"]["behaviours"]] == ["terminal-behaviour"]
    assert numbers["judged"]["judge_models"] == ["judge-double"]
    vetr = next(r for r in numbers["scene"]["summary"] if r["arm"].startswith("vetr"))
    overall = vetr["overall"]
    assert (overall["n"], overall["valid"], overall["invalid"]) == (3, 2, {"no_render": 1})
    assert numbers["scene_demo"]["task"] == "s0"
    assert numbers["scene_demo"]["images"]["start"].startswith("data:image/png;base64,")
    (harness,) = numbers["interventions"]["harnesses"]
    (decide,) = harness["rows"]
    # i1 passes without the intervention and fails with it; the other items agree
    assert decide["intervention"] == "decide" and decide["n"] == 4
    assert decide["delta"] == -25.0
    (build,) = numbers["harness_builds"]["builds"]
    assert build["dir"].endswith("build") and build["builds"][0]["build"] == 0


def test_the_page_shows_each_section_in_order(written: tuple[dict, str]) -> None:
    _, html = written
    marks = ['id="paired-h"', 'id="agents-h"', 'id="judged-h"', 'id="scene-h"',
             'id="scene-demo-h"', 'id="within-h"' if 'id="within-h"' in html else
             'id="plots-h"', 'id="run-h"', "Interventions on harness <code>abababababab</code>",
             "<h2>Harness compilation</h2>", "</body>"]
    at = [html.index(m) for m in marks]
    assert at == sorted(at)
    assert html.count("<h2>Harness compilation</h2>") == 1
    assert "plots/agents_pass_at_k.png" in html and "plots/judged_rates_0.png" in html


def test_the_json_holds_every_section(run: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["report", str(run), "--out", str(tmp_path / "r.html"),
                                       "--json"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert all(printed[name] for name in BODY + END)


def test_a_section_from_outside_the_hub_shows(run: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    class Count(BaseModel):
        trials: int

    class CountSection(Section):
        name = "count_double"  # a test double
        numbers_model = Count
        template = "count_double.html.j2"
        order = 99
        placement = "end"

        def compute(self, run: SectionInput) -> Count:
            return Count(trials=len(run.entries))

        def render(self, env, numbers):  # type: ignore[no-untyped-def]
            return f"<p id='count-double'>{numbers['trials']} trials</p>"

    sections()  # the bundled ones, registered before the registry is copied
    monkeypatch.setattr(SECTIONS, "_entries", dict(SECTIONS._entries))
    register_section(CountSection)
    with RunStore.open(run, readonly=True) as store:
        report = build_report(store)
        html = write_report(report, store, tmp_path / "r.html").read_text()
    n = len(report.entries)
    assert report.numbers["count_double"] == {"trials": n}
    assert f"<p id='count-double'>{n} trials</p>\n</body>" in html


def test_a_section_computing_the_wrong_model_is_refused(run: Path) -> None:
    class Other(BaseModel):
        x: int = 0

    class Computed(BaseModel):
        y: int = 0

    class Wrong(Section):
        name = "wrong_double"
        numbers_model = Other
        template = "none.j2"
        order = 0

        def compute(self, run: SectionInput) -> BaseModel:
            return Computed()

    with RunStore.open(run, readonly=True) as store:
        with pytest.raises(TypeError, match="Computed, not its Other"):
            Wrong().numbers(SectionInput(store, [], "agent"))


def test_validated_checks_found_numbers_and_keeps_none() -> None:
    class Counted(BaseModel):
        model_config = {"extra": "forbid"}
        n: int

    assert validated(Counted, None) is None
    assert validated(Counted, {"n": 3}) == Counted(n=3)
    with pytest.raises(ValueError, match="extra"):
        validated(Counted, {"n": 3, "stray": 1})
