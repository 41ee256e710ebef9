"""Instruments: observe an artifact, return an Observation (feedback and metric alike).

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.instruments.base import (
        INSTRUMENTS as INSTRUMENTS,
        Generate as Generate,
        Instrument as Instrument,
        InstrumentEnv as InstrumentEnv,
        InstrumentSpec as InstrumentSpec,
        build_instrument as build_instrument,
        calls_model as calls_model,
        check_instrument as check_instrument,
        feedback_wording as feedback_wording,
        instrument_names as instrument_names,
        observe_safely as observe_safely,
        parse_spec as parse_spec,
        register_instrument as register_instrument,
        warm_up as warm_up,
    )

_HOMES: dict[str, str] = {
    "Generate": "tether.instruments.base",
    "INSTRUMENTS": "tether.instruments.base",
    "Instrument": "tether.instruments.base",
    "InstrumentEnv": "tether.instruments.base",
    "InstrumentSpec": "tether.instruments.base",
    "build_instrument": "tether.instruments.base",
    "calls_model": "tether.instruments.base",
    "check_instrument": "tether.instruments.base",
    "feedback_wording": "tether.instruments.base",
    "instrument_names": "tether.instruments.base",
    "observe_safely": "tether.instruments.base",
    "parse_spec": "tether.instruments.base",
    "register_instrument": "tether.instruments.base",
    "warm_up": "tether.instruments.base",
}
__all__ = [
    "Generate",
    "INSTRUMENTS",
    "Instrument",
    "InstrumentEnv",
    "InstrumentSpec",
    "build_instrument",
    "calls_model",
    "check_instrument",
    "feedback_wording",
    "instrument_names",
    "observe_safely",
    "parse_spec",
    "register_instrument",
    "warm_up",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
