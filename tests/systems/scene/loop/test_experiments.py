"""The shipped vetr and vetr_ablations experiments validate and hold the designed arms."""

from __future__ import annotations

import pytest

import tether.systems.scene.loop.baselines  # noqa: F401  (registers the strategies: no entry points here)
import tether.systems.scene.loop.strategies  # noqa: F401
from tether.errors import ConfigError
from tether.runs.config import load_experiment
from tether.runs.shipped import SHIPPED_DIR

EXPERIMENTS = SHIPPED_DIR


def test_main_comparison_arms() -> None:
    exp = load_experiment(EXPERIMENTS / "vetr.toml")
    assert exp.suites == ["scene"] and exp.run.concurrency == 1
    arms = {a.arm: (a.name, a.params) for a in exp.strategies}
    assert arms == {
        "one-shot": ("scene_one_shot", {}),
        "blender-alchemy": ("blender_alchemy", {"depth": 2, "breadth": 2}),
        "viga": ("viga", {"max_interactions": 10}),
        "vetr-n1": ("vetr", {"n": 1, "max_interactions": 10, "projection_scope": "paper"}),
        "vetr-n4": ("vetr", {"n": 4, "max_interactions": 10, "projection_scope": "paper"}),
    }
    assert exp.stats.n_resamples == 5000 and exp.stats.seed == 0  # the paper's bootstrap


def test_ablations_change_one_switch_each_at_n1() -> None:
    exp = load_experiment(EXPERIMENTS / "vetr_ablations.toml")
    params = {a.arm: a.params for a in exp.strategies}
    assert all(a.name == "vetr" and a.params["n"] == 1 for a in exp.strategies)
    assert all(a.params["projection_scope"] == "paper" for a in exp.strategies)
    full = params.pop("vetr-full")
    assert full == {"n": 1, "projection_scope": "paper"}
    same = ("n", "projection_scope")
    assert {arm: {k: v for k, v in p.items() if k not in same}
            for arm, p in params.items()} == {
        "refiner-off": {"refiner": "off"}, "shared-memory": {"shared_memory": True},
        "history-3": {"history": 3}, "no-verifier": {"verifier": False},
        "persistent-scene": {"persistent": True},
    }
    assert exp.stats.n_resamples == 5000


def test_bad_vetr_params_are_config_errors() -> None:
    from tether.strategies.base import build_strategy

    for params in ({"n": 0, "refiner": "off"}, {"refiner": "magic"},
                   {"refiner": "off", "modality": "smell"}, {"projection_scope": "all"},
                   {"shared_memory": True, "verifier_memory": True}):
        with pytest.raises(ConfigError):
            build_strategy("vetr", params)
