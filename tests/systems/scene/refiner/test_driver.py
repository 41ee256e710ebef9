"""Algorithm 1's control flow with a scripted executor (a test double): order, shortcuts,
the cap (failed executions counted), the fallbacks."""

from __future__ import annotations

from tether.systems.scene.executor import Execution, RenderSettings
from tether.systems.scene.refiner import MAX_EXTRA_EXECUTIONS, refine_record
from tether.systems.scene.refiner.candidate import Candidate, Endpoint

from .states import event, record

R = RenderSettings(size=8, samples=1)
FILL_E = 'bpy.data.lights["Fill"].energy'


class ScriptedExecutor:
    """Returns scripted executions in order and counts the calls (a test double)."""

    def __init__(self, results: list[Execution]) -> None:
        self.results = list(results)
        self.programs: list[str] = []

    def execute(self, source: str, **kw) -> Execution:
        self.programs.append(source)
        return self.results.pop(0) if self.results else Execution(ok=False, error={"kind": "x"})


def test_the_schematic_full_effect_skip_does_not_execute() -> None:
    prev = record("prev\n", cells={FILL_E: 1.0})
    raw = record("raw\n", cells={FILL_E: 2.0, 'bpy.data.objects["Left"].location': [5.0, 0, 0]})
    ex = ScriptedExecutor([record(cells={FILL_E: 1.5}).execution])
    got = refine_record(raw, executor=ex, previous=prev, initial=prev, render=R,
                        projection_scope="paper")
    outcomes = {t["alternative"]: t["outcome"] for t in got.tried}
    assert outcomes["projection_full"].startswith("skipped: endpoints match")
    assert got.accepted == "projection_half" and got.executions == 1
    assert len(ex.programs) == 1 and "energy = 1.5" in ex.programs[0]
    assert ex.programs[0].startswith("prev\n")  # projection compiles into the previous


def test_keep_other_writes_makes_that_projection_ineligible_and_delivers_raw() -> None:
    prev = record("prev\n", cells={FILL_E: 1.0})
    raw = record("raw\n", cells={FILL_E: 2.0, 'bpy.data.objects["Left"].location': [5.0, 0, 0]})
    ex = ScriptedExecutor([])
    got = refine_record(raw, executor=ex, previous=prev, initial=prev, render=R)
    outcomes = {t["alternative"]: t["outcome"] for t in got.tried}
    for name in ("projection_full", "projection_half"):
        assert outcomes[name] == ("not eligible (keep_other_writes): the submission also "
                                  'changes bpy.data.objects["Left"].location')
    assert got.accepted == "raw" and got.delivered is raw and ex.programs == []
    assert got.projection_scope == "keep_other_writes"


def test_an_unknown_projection_scope_is_refused() -> None:
    import pytest

    raw = record("raw\n")
    with pytest.raises(ValueError, match="unknown projection scope 'all'"):
        refine_record(raw, executor=ScriptedExecutor([]), previous=raw, initial=raw, render=R,
                      projection_scope="all")


def test_full_effect_returns_the_raw_record_when_it_passes_against_previous() -> None:
    prev = record("prev\n", cells={FILL_E: 1.0})
    raw = record("raw\n", cells={FILL_E: 2.0})
    ex = ScriptedExecutor([])
    got = refine_record(raw, executor=ex, previous=prev, initial=prev, render=R)
    assert got.accepted == "projection_full" and got.delivered is raw and got.executions == 0
    assert ex.programs == [] and got.checks["endpoints"]["ok"]


def test_light_recovery_realized_by_raw_is_skipped() -> None:
    key = ["lights", "Key"]
    raw = record(events=[event(key, "energy", 200.0, via="KeyL"),
                         event(key, "energy", 200.0, via="KeyR")])  # same value: realized
    got = refine_record(raw, executor=ScriptedExecutor([]), previous=raw, initial=raw, render=R)
    outcome = {t["alternative"]: t["outcome"] for t in got.tried}["light_recovery_current"]
    assert outcome == "skipped: the raw record realizes its endpoints"
    assert got.accepted == "raw" and got.executions == 0


def failing(name: str):
    def build(raw, z0, prev):
        return Candidate(name, "raise RuntimeError\n", raw,
                         [Endpoint(("objects", "Left"), "location", 1.0, 0)])
    return build


def test_the_cap_counts_failed_executions_then_raw_is_delivered() -> None:
    raw = record("raw\n")
    ex = ScriptedExecutor([])
    alts = [(f"a{i}", failing(f"a{i}")) for i in range(8)]
    got = refine_record(raw, executor=ex, previous=raw, initial=raw, render=R, alternatives=alts)
    assert got.executions == MAX_EXTRA_EXECUTIONS == len(ex.programs)
    assert [t["outcome"] for t in got.tried] == ["rejected"] * 6 + [
        "not executed: the execution cap is reached"]
    assert got.accepted == "raw" and got.delivered is raw


def test_a_failed_raw_reuses_the_exact_previous_record() -> None:
    prev = record("prev\n")
    raw = record("raise\n", ok=False)
    got = refine_record(raw, executor=ScriptedExecutor([]), previous=prev, initial=prev,
                        render=R)
    assert got.accepted == "previous" and got.delivered is prev and got.executions == 0
    assert all(t["outcome"] == "unavailable" for t in got.tried)
    dead = record("p\n", ok=False)
    got = refine_record(raw, executor=ScriptedExecutor([]), previous=dead, initial=dead, render=R)
    assert got.accepted == "none" and got.delivered is None


def test_refine_is_a_refiner() -> None:
    import inspect

    from tether.systems.scene.record import Refiner, refiner_off
    from tether.systems.scene.refiner import refine

    required = inspect.signature(refiner_off).parameters
    params = inspect.signature(refine).parameters
    assert list(params)[:len(required)] == list(required)  # the protocol's, in its order
    assert all(p.default is not inspect.Parameter.empty for p in list(params.values())[
        len(required):])  # anything beyond it is optional
    _: Refiner = refine  # type checkers see the same


def test_an_alternative_that_cannot_compile_is_unavailable_not_fatal() -> None:
    def broken(raw, z0, prev):
        raise ValueError("a patch cannot write a non-finite value: nan")

    raw = record("raw\n")
    got = refine_record(raw, executor=ScriptedExecutor([]), previous=raw, initial=raw, render=R,
                        alternatives=[("broken", broken)])
    assert got.tried[0]["outcome"] == (
        "unavailable (ValueError: a patch cannot write a non-finite value: nan)")
    assert got.accepted == "raw" and got.executions == 0
