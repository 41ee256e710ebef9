from tether.systems.compile.compiler.gate import Incumbent, gate

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
