"""`warm_up`: an instrument may get ready before a run's first observation; it never fails."""

from __future__ import annotations

import pytest

from tether.instruments import INSTRUMENTS, InstrumentEnv, warm_up


class _Ready:
    calls: list[tuple[str, int]] = []

    @staticmethod
    def warm_up(env: InstrumentEnv, concurrency: int) -> None:
        _Ready.calls.append((env.sandbox, concurrency))


class _Failing:
    @staticmethod
    def warm_up(env: InstrumentEnv, concurrency: int) -> None:
        raise RuntimeError("cannot get ready here")


def test_warm_up_calls_the_instruments_own_hook_with_the_concurrency(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(INSTRUMENTS._entries, "ready_probe", _Ready)
    warm_up("ready_probe;x=1", InstrumentEnv(sandbox="bwrap"), 8)
    assert _Ready.calls == [("bwrap", 8)]


def test_warm_up_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(INSTRUMENTS._entries, "failing_probe", _Failing)
    warm_up("failing_probe", InstrumentEnv(), 2)  # its failure shows when it is used
    warm_up("no_such_instrument_anywhere", InstrumentEnv(), 2)
    warm_up("critique;model=x", InstrumentEnv(), 2)  # no hook: nothing to do
