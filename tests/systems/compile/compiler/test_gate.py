from tether.systems.compile.compiler.gate import MIN_GATE_ITEMS, Incumbent, gate, small_gate_warning

BARE = Incumbent("h", {}, 0.5, True)


def test_strictly_higher_is_accepted() -> None:
    assert gate(BARE, True, 0.5000001) == "accept"


def test_a_tie_keeps_the_incumbent() -> None:
    assert gate(BARE, True, 0.5) == "tie"


def test_lower_or_inadmissible_is_rejected() -> None:
    assert gate(BARE, True, 0.49) == "reject"
    assert gate(BARE, False, 0.9) == "reject"
    assert gate(BARE, True, None) == "reject"


def test_more_infra_errors_than_the_bare_floor_is_rejected() -> None:
    assert gate(BARE, True, 0.9, infra_errors=2, floor_infra_errors=1) == "reject"
    assert gate(BARE, True, 0.9, infra_errors=1, floor_infra_errors=1) == "accept"


def test_a_small_gate_is_named_in_a_warning() -> None:
    assert small_gate_warning(MIN_GATE_ITEMS) is None and small_gate_warning(None) is None
    assert small_gate_warning(4) == (
        "the validation gate decides on 4 items, fewer than 10: one item moves the mean "
        "by 25 points, so a selection may be chance (more rows, or a larger --validation)")
    assert small_gate_warning(0) == "the validation gate decides on no item: every " \
                                    "proposal is rejected"
