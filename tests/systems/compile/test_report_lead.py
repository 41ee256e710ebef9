"""The first sentences of a compile's report: the selection on test against bare."""

from __future__ import annotations

from typing import Any

from tether.systems.compile.report_lead import compile_lead


def _arm(arm: str, mean: float | None, n: int = 10, **extra: Any) -> dict[str, Any]:
    return {"arm": arm, "n": n, "mean": mean, "low": None if mean is None else mean / 2,
            "high": None if mean is None else (1 + mean) / 2, **extra}


def _compile(*arms: dict[str, Any], is_bare: bool = False, graded: bool = False,
             stopped: str = "rounds") -> dict[str, Any]:
    build = {"selected_hash": "17bc9d33510d7f38", "selected_is_bare": is_bare,
             "stopped": stopped, "arms": list(arms)}
    return {"graded": graded, "builds": [build], "across": None}


VS = {"delta": 50.0, "low": 20.0, "high": 80.0, "p_value": 0.0625}


def test_the_selected_harness_against_bare_on_test_in_points() -> None:
    lead = compile_lead([_compile(_arm("bare", 0.0), _arm("h0", 0.3),
                                  _arm("selected", 0.5, vs_bare=VS))])
    assert lead is not None and lead.startswith(
        "Harness compilation: the selected harness 17bc9d33510d scores 50.0 [25.0, 75.0] on "
        "the 10 test items against the bare student's 0.0 [0.0, 50.0]: +50.0 points "
        "[+20.0, +80.0], McNemar p = 0.062.")
    assert "pools every split" in lead  # why the arms table below says something else
    graded = compile_lead([_compile(_arm("bare", 0.0), _arm("selected", 0.5, vs_bare=VS),
                                    graded=True)])
    assert graded is not None and "sign test p = 0.062" in graded


def test_bare_selected_no_test_score_and_nothing_to_say() -> None:
    bare = compile_lead([_compile(_arm("bare", 0.2, n=4), _arm("selected", 0.2),
                                  is_bare=True)])
    assert bare is not None and bare.startswith(
        "Harness compilation: no harness beat the bare student on validation, so the bare "
        "student is selected: 20.0 [10.0, 60.0] on the 4 test items.")
    stopped = compile_lead([_compile(_arm("bare", 0.2), _arm("selected", None),
                                     stopped="student budget")])
    assert stopped is not None and "has no test score (stopped: student budget)" in stopped
    assert compile_lead([_compile(_arm("bare", None), _arm("selected", 0.5))]) is None
    assert compile_lead([]) is None
    two = _compile(_arm("bare", 0.0), _arm("selected", 0.5))
    assert compile_lead([two, two]) is None  # two compiles in one run: no single answer


def test_several_builds_lead_with_their_means() -> None:
    hc = _compile(_arm("bare", 0.0), _arm("selected", 0.5))
    hc["builds"] *= 2
    hc["across"] = {"mean": {"bare": 0.1, "h0": 0.2, "selected": 0.45}}
    lead = compile_lead([hc])
    assert lead is not None and lead.startswith(
        "Harness compilation, 2 builds: the selected harnesses score 45.0 on test against "
        "the bare student's 10.0 (means over the builds).")
    hc["across"] = {"mean": {"bare": 0.1, "h0": 0.2, "selected": None}}
    assert compile_lead([hc]) is None
