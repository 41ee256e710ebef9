"""The geometry instrument as an Instrument: specs, task data, Observation, feedback."""

from __future__ import annotations

import pytest

from tests.systems.pages.geometry.conftest import PLANTED
from tether.core.artifact import Artifact
from tether.core.observation import Observation
from tether.core.task import Task
from tether.instruments.base import InstrumentEnv, build_instrument, instrument_names
from tether.systems.pages.geometry import GeometryInstrument, format_geometry_feedback

#: the instrument's declared options
Options = GeometryInstrument.Params


def _task(**data):
    return Task(id="t1", suite="planted", prompt="make a page", artifact_kind="html",
                metric="geometry", data=data)


def test_registered_and_built_from_a_spec():
    assert "geometry" in instrument_names()
    inst = build_instrument("geometry;profile=reference;modality=slides;frames=0,500")
    assert isinstance(inst, GeometryInstrument)
    assert inst.profile.name == "reference" and inst.modality == "slide"
    assert inst.frames == (0, 500) and inst.version == "2+reference-1"
    assert inst.grounded and inst.higher_is_better is False


def test_task_data_gives_modality_and_frames_unless_options_override():
    inst = GeometryInstrument()
    assert inst.resolve(_task(modality="webpages")) == ("web", None)
    assert inst.resolve(_task(modality="animations", frame_times_ms=[0, 700])) == (
        "animation", (0, 700))
    forced = GeometryInstrument(Options(modality="figure", frames="0,1"))
    assert forced.resolve(_task(modality="web", frame_times_ms=[5])) == ("figure", (0, 1))


def test_observation_carries_score_counts_and_evidence(browser_host):
    inst = GeometryInstrument(host=browser_host)
    html = (PLANTED / "web_fixed_width.html").read_text()
    obs = inst.observe(Artifact(kind="html", text=html), _task(modality="web"), InstrumentEnv())
    assert obs.ok and obs.instrument == "geometry" and obs.grounded
    assert obs.score == 1.0 and obs.passed is False
    assert obs.raw["n_defects"] == 1 and obs.raw["counts"] == {"scrollbar": 1}
    assert obs.raw["per_location"] == {"1920x1080": 0, "375x812": 1}
    (d,) = obs.defects
    assert d.kind == "scrollbar" and d.location == "375x812"
    assert d.evidence["viewport"] == [375, 812] and d.evidence["frame_ms"] is None
    assert d.evidence["detail"]["overW"] == 225 and d.evidence["suggested_fix"]


def test_clean_page_passes_with_score_zero(browser_host):
    inst = GeometryInstrument(host=browser_host)
    obs = inst.measure((PLANTED / "clean.html").read_text(), "slide")
    assert obs.ok and obs.score == 0.0 and obs.passed is True and obs.defects == []


def test_probe_failure_is_an_error_never_zero_defects(browser_host):
    # A page whose script never yields: the probe times out, and the observation
    # says so instead of reporting a clean page.
    inst = GeometryInstrument(GeometryInstrument.Params(timeout_s=2.0), host=browser_host)
    obs = inst.measure("<p>x</p><script>while (true) {}</script>", "figure")
    assert obs.error and "1920x1080" in obs.error
    assert obs.score is None and obs.passed is None and obs.defects == []
    assert "loading the page timed out (limit: 2 s per viewport)" in obs.error


# Every element query the probes make spins forever: the page loads, the probe cannot finish.
SPINNING_PROBE = """<p>x</p><script>
const spin = () => { for (;;) {} };
Element.prototype.checkVisibility = spin;
window.getComputedStyle = spin;
</script>"""


@pytest.mark.parametrize("profile", ["default", "reference"])
def test_a_timeout_names_the_step_and_the_limit(browser_host, profile):
    obs = GeometryInstrument(Options(profile=profile, timeout_s=2.0),
                             host=browser_host).measure(SPINNING_PROBE, "figure")
    assert obs.score is None and obs.defects == []
    assert obs.error == ("geometry probe failed at 1920x1080: evaluating the layout probe "
                         "timed out (limit: 2 s per viewport)")


def test_feedback_gives_coordinates_and_fixes(browser_host):
    inst = GeometryInstrument(Options(profile="reference"), host=browser_host)
    obs = inst.measure((PLANTED / "overlap_cascade.html").read_text(), "figure")
    text = format_geometry_feedback(obs)
    assert text.startswith("Layout check found 3 defect(s): 3 text_overlap.")
    assert '- TEXT_OVERLAP [1920x1080]: text "Alpha" (100,200 91x38) overlaps' in text
    assert "-- fix: move the texts apart" in text
    few = format_geometry_feedback(obs, limit_per_kind=1)
    assert "... and 2 more text_overlap" in few


def test_feedback_for_errors_and_clean_pages():
    failed = Observation(instrument="geometry", version="1", grounded=True, error="boom")
    assert "could not be measured (boom)" in format_geometry_feedback(failed)
    clean = Observation(instrument="geometry", version="1", grounded=True, score=0, passed=True)
    assert format_geometry_feedback(clean) == "Layout check: no defects found."
