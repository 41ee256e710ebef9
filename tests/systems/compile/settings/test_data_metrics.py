"""The data setting's metrics: exact, anls, f1, numeric, choice, module:function."""

from __future__ import annotations

import pytest

from tether.errors import ConfigError
from tether.systems.compile.setting import Item
from tether.systems.compile.settings.data_metrics import (
    MetricError,
    choice,
    choice_named,
    f1,
    numeric,
    resolve_metric,
)


def test_f1_is_token_overlap_best_over_golds() -> None:
    assert f1("the Golden City", ["Golden City"]) == 1.0
    assert f1("Golden", ["Golden City"]) == pytest.approx(2 / 3)
    assert f1("nothing", ["Golden City", "Birnin Zana"]) == 0.0
    assert f1("", [""]) == 1.0


def test_numeric_compares_the_first_number() -> None:
    assert numeric("It is 1,000 units.", ["1000.0"]) == 1.0
    assert numeric("-2.5", ["-2.50"]) == 1.0
    assert numeric("1001", ["1000"]) == 0.0
    assert numeric("none", ["0"]) == 0.0


def test_choice_accepts_the_letter_or_the_text() -> None:
    options = ["Paris", "Oslo", "Lima"]
    assert choice("B", ["Oslo"], options) == 1.0
    assert choice("(B) Oslo", ["Oslo"], options) == 1.0
    assert choice("oslo", ["Oslo"], options) == 1.0
    assert choice("A", ["Oslo"], options) == 0.0
    assert choice("Oslo", ["B"], options) == 1.0  # a gold letter names its option


def test_aggregation_follows_the_metric() -> None:
    assert {n: resolve_metric(n).aggregation for n in ("exact", "anls", "f1", "numeric",
                                                       "choice")} == {
        "exact": "pass_rate", "anls": "mean_score", "f1": "mean_score",
        "numeric": "pass_rate", "choice": "pass_rate"}


USER_METRICS = """
def starts(prediction, gold, item):
    return prediction.startswith(gold[0][:2]) and item["unit"] == "kg"

def half(prediction, gold, item):
    return 0.5

def wild(prediction, gold, item):
    return 3

starts.binary = True
"""


def test_a_user_function_gets_prediction_gold_and_the_row(tmp_path, monkeypatch) -> None:
    # a metric runs in processes of its own: its module is a file they import
    (tmp_path / "user_metric_mod.py").write_text(USER_METRICS)
    monkeypatch.syspath_prepend(str(tmp_path))
    item = Item("i", "q?", {"answers": ["Golden"], "fields": {"unit": "kg"}})
    metric = resolve_metric("user_metric_mod:starts")
    assert metric.score("Gone", ["Golden"], item) == 1.0 and metric.aggregation == "pass_rate"
    assert resolve_metric("user_metric_mod:half").score("x", ["y"], item) == 0.5
    assert resolve_metric("user_metric_mod:half").aggregation == "mean_score"
    with pytest.raises(MetricError, match="must return a bool or a number in"):
        resolve_metric("user_metric_mod:wild").score("x", ["y"], item)
    with pytest.raises(ConfigError, match="cannot load it"):
        resolve_metric("user_metric_mod:nothere")


def test_choice_keeps_its_meaning_a_sentence_is_not_the_option() -> None:
    assert choice("The answer is Oslo.", ["Oslo"], ["Paris", "Oslo", "Lima"]) == 0.0


def test_choice_named_accepts_a_reply_naming_exactly_one_option() -> None:
    options = ["Paris", "Oslo", "Lima", "New York", "York"]
    assert choice_named("The answer is Oslo.", ["Oslo"], options) == 1.0
    assert choice_named("I think it's OSLO", ["B"], options) == 1.0  # gold by letter
    assert choice_named("B", ["Oslo"], options) == 1.0  # what choice accepts, it accepts
    assert choice_named("The answer is Paris.", ["Oslo"], options) == 0.0
    assert choice_named("Oslo, or maybe Lima", ["Oslo"], options) == 0.0  # two named
    assert choice_named("Oslonia", ["Oslo"], options) == 0.0  # whole words only
    assert choice_named("It is New York.", ["New York"], options) == 1.0
    assert choice_named("It is New York.", ["York"], options) == 0.0
    assert choice_named("The answer is Oslo.", ["Oslo"], ()) == 0.0  # no options listed


def test_choice_named_reads_the_rows_choices_list() -> None:
    metric = resolve_metric("choice_named")
    assert metric.aggregation == "pass_rate"
    listed = Item("i", "q?", {"answers": ["Oslo"], "fields": {"choices": ["Paris", "Oslo"]}})
    as_text = Item("i", "q?", {"answers": ["Oslo"], "fields": {"choices": "Paris, Oslo"}})
    assert metric.score("Surely Oslo.", ["Oslo"], listed) == 1.0
    assert metric.score("Surely Oslo.", ["Oslo"], as_text) == 0.0
    assert resolve_metric("choice").score("Surely Oslo.", ["Oslo"], listed) == 0.0
