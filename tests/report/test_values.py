from tether.core.observation import Observation
from tether.report.values import metric_mode, single_shot_value, trial_value

from .conftest import make_record


def test_mode_follows_the_metric_observation():
    passing = [make_record(0, "t", 0, "s", None, passed=True)]
    assert metric_mode(passing).name == "pass"
    geometry = [make_record(0, "t", 0, "s", None, n_defects=2, instrument="geometry")]
    assert metric_mode(geometry).name == "defects"
    assert not metric_mode(geometry).higher_is_better
    judged = make_record(0, "t", 0, "s", None, passed=True)
    judged.metric = Observation(instrument="screenshot_judge", version="1", grounded=False,
                                score=0.75)
    assert metric_mode([judged]).name == "score"
    assert trial_value(judged, metric_mode([judged])) == 0.75


def test_errors_have_no_value_and_truncation_is_a_fail_only_for_verdicts():
    errored = make_record(0, "t", 0, "s", None, status="error")
    truncated = make_record(1, "t", 0, "s", None, status="truncated")
    for mode_of in ([make_record(0, "t", 0, "s", None, passed=True)],
                    [make_record(0, "t", 0, "s", None, n_defects=1, instrument="geometry")]):
        mode = metric_mode(mode_of)
        assert trial_value(errored, mode) is None
    pass_mode = metric_mode([make_record(0, "t", 0, "s", None, passed=True)])
    defect_mode = metric_mode([make_record(0, "t", 0, "s", None, n_defects=1,
                                           instrument="geometry")])
    assert trial_value(truncated, pass_mode) == 0.0
    assert trial_value(truncated, defect_mode) is None  # nothing delivered, nothing to count


def test_single_shot_draft_values():
    pass_mode = metric_mode([make_record(0, "t", 0, "s", None, passed=True)])
    rec = make_record(0, "t", 0, "s", None, passed=True,
                      extra={"single_shot_passed": False, "single_shot_score": 0.6})
    assert single_shot_value(rec, pass_mode) == 0.0  # the verdict, not the check fraction
    only_score = make_record(0, "t", 0, "s", None, passed=True,
                             extra={"single_shot_score": 0.6})
    assert single_shot_value(only_score, pass_mode) is None
