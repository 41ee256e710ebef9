"""The demo's headline experiment: the config behind `tether demo`, and how it is told."""

from __future__ import annotations

from tether.cli import DEFAULT_MODEL
from tether.demo.headline import headline_config, headline_lines
from tether.runs.config import experiment_from_mapping, load_experiment


def test_the_shipped_config_is_the_demos_headline() -> None:
    # the shipped demo_headline (src/tether/experiments/) is how the seeds in
    # docs/results.md were run; it is run by name
    shipped = load_experiment("demo_headline").resolved()
    demo = experiment_from_mapping(headline_config(DEFAULT_MODEL, None, 0, "bwrap"))
    assert demo.resolved() == shipped


def _headline(improved: int, regressed: int, p: float) -> dict:
    return {"pass_rate": {"single_shot": 0.25, "best_of_4": 0.5},
            "interval": {"single_shot": [0.1, 0.4], "best_of_4": [0.3, 0.7]},
            "improved": improved, "regressed": regressed, "pairs": 28, "p": p}


def test_the_headline_says_plainly_whether_the_grounded_arm_gained() -> None:
    gained = headline_lines(_headline(7, 0, 0.0156))
    assert gained[0] == ("pass rate: single-shot 25% [10, 40], best-of-4 50% [30, 70] "
                         "(95% Wilson intervals); 7 improved, 0 regressed of 28 tasks, "
                         "sign test p = 0.0156")
    assert "unlikely to be chance (p < 0.05)" in gained[1]
    assert "chance is not ruled out" in headline_lines(_headline(2, 0, 0.5))[1]
    assert headline_lines(_headline(1, 1, 1.0))[1].startswith("no gain at this scale")
