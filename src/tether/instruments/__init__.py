"""Instruments: observe an artifact, return an Observation (feedback and metric alike)."""

from tether.instruments.base import (
    Instrument,
    InstrumentEnv,
    build_instrument,
    instrument_names,
    observe_safely,
    parse_spec,
    register_instrument,
)

__all__ = ["Instrument", "InstrumentEnv", "build_instrument", "instrument_names",
           "observe_safely", "parse_spec", "register_instrument"]
