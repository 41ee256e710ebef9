import pytest

from tether.compile import Setting, ToySetting, get_setting, setting_names
from tether.errors import ConfigError


def test_toy_is_registered_and_implements_the_protocol():
    assert "toy" in setting_names()
    setting = get_setting("toy")
    assert isinstance(setting, Setting)
    assert isinstance(setting, ToySetting)


def test_unknown_setting_names_the_known_ones():
    with pytest.raises(ConfigError) as info:
        get_setting("nope")
    assert "known:" in info.value.hint and "toy" in info.value.hint


def test_toy_splits_are_disjoint_and_seeded():
    setting = get_setting("toy")
    sizes = {"probe": 10, "validation": 5, "test": 5}
    a = setting.splits(1, sizes)
    assert [len(a[s]) for s in ("probe", "validation", "test")] == [10, 5, 5]
    ids = [i.item_id for s in a.values() for i in s]
    assert len(ids) == len(set(ids)) == 20
    assert a == setting.splits(1, sizes)
    assert a != setting.splits(2, sizes)


def test_toy_observation_has_no_gold_unless_a_resource_is_enabled():
    setting = get_setting("toy")
    item = next(i for i in setting.splits(0, {"probe": 20})["probe"] if i.data["kind"] == "sum")
    bare = setting.observation(item, {})
    assert bare == {"item_id": item.item_id, "question": item.question}
    assert set(setting.observation(item, {"signals": True})) == {"item_id", "question", "signals"}
    assert setting.score(" " + setting.gold(item)[0] + " ", item) == 1.0
    assert setting.score("nope", item) == 0.0
