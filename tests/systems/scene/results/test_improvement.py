"""Eq. 9 / Eq. 5: the mean relative error reduction over (group, metric) cells."""

from __future__ import annotations

import pytest

from tether.systems.scene.results.improvement import improvement


def test_the_papers_cells_when_n_clip_was_measured() -> None:
    base = {"a": {"pl": 0.04, "n_clip": 0.2}, "b": {"pl": 0.02, "n_clip": 0.1}}
    arm = {"a": {"pl": 0.01, "n_clip": 0.2}, "b": {"pl": 0.03, "n_clip": 0.05}}
    got = improvement(arm, base, ["a", "b"])
    # (1 - .01/.04) + (1 - .2/.2) + (1 - .03/.02) + (1 - .05/.1) = .75 + 0 - .5 + .5
    assert got == {"value": pytest.approx(18.75), "metrics": ["n_clip", "pl"], "cells": 4,
                   "why": None}


def test_pl_only_without_n_clip_and_undefined_cells() -> None:
    base = {"a": {"pl": 0.04, "n_clip": None}}
    assert improvement({"a": {"pl": 0.02}}, base, ["a"])["value"] == pytest.approx(50.0)
    assert improvement({"a": {"pl": 0.02}}, base, ["a"])["metrics"] == ["pl"]
    missing = improvement({}, base, ["a"])
    assert missing["value"] is None and missing["why"] == "no pl mean in a for the arm"
    zero = improvement({"a": {"pl": 0.02}}, {"a": {"pl": 0.0}}, ["a"])
    assert zero["value"] is None and zero["why"] == "the baseline's pl in a is 0"
    half = improvement({"a": {"pl": 0.02, "n_clip": 0.1}},
                       {"a": {"pl": 0.04, "n_clip": 0.2}, "b": {"pl": 0.1}}, ["a", "b"])
    assert half["value"] is None and "no n_clip mean in b" in half["why"]  # never partial
