"""The `flags` setting (flagpy arrays through a restricted unpickler, pycountry cards)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pytest.importorskip("flagpy")
pytest.importorskip("pycountry")

from tether.systems.compile.settings.flags import FlagsSetting, top1_rule  # noqa: E402
from tether.systems.compile.settings.flags_data import card, flags, load_array  # noqa: E402
from tether.systems.compile.settings.hooks_only import hooks_only_score  # noqa: E402

from .conftest import assert_common_contract  # noqa: E402


class _Exploit:
    def __reduce__(self):
        import os

        return (os.system, ("echo pwned",))


def test_restricted_unpickler_loads_arrays_and_refuses_other_globals() -> None:
    arr = np.arange(6, dtype=np.uint8).reshape(2, 3)
    assert np.array_equal(load_array(pickle.dumps(arr, protocol=3)), arr)
    with pytest.raises(pickle.UnpicklingError, match="refused global"):
        load_array(pickle.dumps(_Exploit()))
    with pytest.raises(pickle.UnpicklingError, match="not an array"):
        load_array(pickle.dumps({"a": 1}))


def test_inventory_is_flagpys_195_flags_with_cards() -> None:
    assert len(flags()) == 195
    assert len({code for code, _ in flags()}) == 195
    text = card("IT")
    assert "ISO alpha-3: ITA" in text and "Official name: Italian Republic" in text


def test_common_contract_with_cards() -> None:
    assert_common_contract(FlagsSetting(), resources={"cards": {"budget_chars": 560}})


def test_candidates_are_top3_with_cards_cut_to_budget() -> None:
    setting = FlagsSetting()
    item = setting.splits(2, {"probe": 1, "validation": 0, "test": 0})["probe"][0]
    obs = setting.observation(item, {"cards": {"budget_chars": 30}})
    assert len(obs["candidates"]) == 3
    sims = [c["similarity"] for c in obs["candidates"]]
    assert sims == sorted(sims, reverse=True)
    assert all(len(c["card"]) <= 30 for c in obs["candidates"])
    assert set(setting.observation(item, {})) == {"item_id", "question"}


def test_top1_rule_copies_the_asked_field() -> None:
    cands = [{"name": "Italy", "similarity": 0.9, "card": card("IT")}]
    assert top1_rule("What is the ISO 3166-1 alpha-3 code of the country?", cands) == "ITA"
    assert top1_rule("What is the ISO 3166-1 numeric code of it?", cands) == "380"
    assert top1_rule("What is the official name of it?", cands) == "Italian Republic"
    assert top1_rule("What is the currency of it?", cands) == ""  # pycountry gives no euro


def test_linker_top1_is_wrong_on_a_real_share() -> None:
    setting = FlagsSetting()
    items = setting.splits(0, {"probe": 0, "validation": 0, "test": 60})["test"]
    top1 = sum(setting.linker_top1_correct(i) for i in items) / len(items)
    assert 0.25 < top1 < 0.75
    result = hooks_only_score(setting, items)
    assert result.ceiling == 1.0 and result.hooks_only < 0.75
