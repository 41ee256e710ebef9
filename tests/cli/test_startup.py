"""tether.cli.startup: a command's start out of the cycle collector's way."""

import gc

import pytest

from tether.cli import start_up


def test_the_collector_is_off_for_the_start_and_back_on_after() -> None:
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    kept = [object() for _ in range(10)]  # alive at the end of the start
    with start_up():
        assert not gc.isenabled()
        kept.append([kept])
    assert gc.isenabled()
    assert gc.get_freeze_count() > frozen  # what the start loaded, out of its sight
    gc.unfreeze()


def test_a_start_that_fails_puts_the_collector_back_and_freezes_nothing() -> None:
    frozen = gc.get_freeze_count()
    with pytest.raises(RuntimeError), start_up():
        raise RuntimeError("bad config")
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_a_collector_switched_off_before_stays_off() -> None:
    gc.disable()
    try:
        with start_up():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
