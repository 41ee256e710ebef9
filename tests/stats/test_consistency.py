import pytest

from tether.stats import consistency_at_k


def test_worked_example():
    outcomes = {"t1": [True, True, True], "t2": [True, False, True],
                "t3": [False, False, True], "t4": [False, False, False]}
    assert consistency_at_k(outcomes, 1).solved == 3
    r = consistency_at_k(outcomes, 2)
    assert (r.solved, r.n_tasks, r.fraction) == (2, 4, 0.5)
    assert consistency_at_k(outcomes, 3).solved == 1


def test_tasks_with_too_few_trials_are_an_error_not_a_silent_zero():
    with pytest.raises(ValueError, match="t2"):
        consistency_at_k({"t1": [True, True], "t2": [True]}, 2)
    with pytest.raises(ValueError):
        consistency_at_k({}, 1)
