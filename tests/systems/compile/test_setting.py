import pytest

from tether.errors import ConfigError
from tether.systems.compile import Setting, get_setting, setting_names
from tether.systems.compile.settings.toy import ToySetting


def test_toy_is_registered_and_implements_the_protocol():
    assert "toy" in setting_names()
    setting = get_setting("toy")
    assert isinstance(setting, Setting)
    assert isinstance(setting, ToySetting)


def test_unknown_setting_names_the_known_ones():
    with pytest.raises(ConfigError) as info:
        get_setting("nope")
    hint = info.value.hint or ""
    assert "known settings:" in hint and "toy" in hint and "; or jsonl:PATH" in hint


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


PLUGIN = '''
import random
from tether.systems.compile import Item


class CityQA:
    """Made-up cities and their rivers (a user's setting, outside tether)."""

    name = "cityqa"
    offered_resources = ("context",)

    def splits(self, seed, sizes):
        items = [Item(f"c{k}", f"Which river runs through city {k}?", {"a": f"R{k}x"})
                 for k in range(30)]
        random.Random(seed).shuffle(items)
        out, start = {}, 0
        for split in ("probe", "validation", "test"):
            out[split], start = items[start:start + sizes[split]], start + sizes[split]
        return out

    def observation(self, item, resources):
        extra = {"context": item.data["a"]} if resources.get("context") else {}
        return {"item_id": item.item_id, "question": item.question, **extra}

    def image(self, item): return None
    def score(self, answer, item): return float(answer.strip() == item.data["a"])
    def gold(self, item): return [item.data["a"]]
    def inventory(self): return []
    def public_vocabulary(self): return []


def make():
    return CityQA()


NOT_A_SETTING = 42
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "cityqa_mod.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "cityqa_mod"


def test_module_attr_finds_a_class_a_factory_and_refuses_other_things(user_module):
    assert get_setting(f"{user_module}:CityQA").name == "cityqa"
    assert get_setting(f"{user_module}:make").name == "cityqa"
    with pytest.raises(ConfigError, match="is not a setting: it has no name"):
        get_setting(f"{user_module}:NOT_A_SETTING")
    with pytest.raises(ConfigError, match="has no 'Nope'"):
        get_setting(f"{user_module}:Nope")
    with pytest.raises(ConfigError, match="cannot import 'no_such_mod_xyz'"):
        get_setting("no_such_mod_xyz:Thing")


def test_entry_points_of_the_settings_group_are_found(user_module, monkeypatch):
    from importlib.metadata import EntryPoint

    import tether.systems.compile.setting as setting_mod

    declared = [EntryPoint("cityqa", f"{user_module}:CityQA", "tether.settings")]
    # plugins reads each group once per process: replace that read, not the scan under it
    monkeypatch.setattr("tether.plugins._group",
                        lambda group: tuple(declared) if group == "tether.settings" else ())
    monkeypatch.setattr(setting_mod.SETTINGS, "_entries", setting_mod.SETTINGS.entries())
    monkeypatch.setattr(setting_mod.SETTINGS, "_loaded_once", False)
    assert "cityqa" in setting_names()
    assert get_setting("cityqa").name == "cityqa"


def test_every_command_finds_a_module_attr_setting(user_module, tmp_path, monkeypatch):
    import json

    from click.testing import CliRunner

    from tether.cli.hub import main

    doubles = "scripted:tether.testing.scripted_teacher:"
    spec = f"{user_module}:CityQA"
    out = tmp_path / "b"
    run = CliRunner().invoke(main, [
        "compile", "--setting", spec, "--teacher", doubles + "competent",
        "--student", doubles + "student", "--probe", "6", "--validation", "6",
        "--test", "8", "--rounds", "1", "--comparators", "none", "--out", str(out),
        "--json"])
    assert run.exit_code == 0, run.output
    result = json.loads(run.stdout)
    assert result["selected"]["test"] > result["bare"]["test"]
    again = CliRunner().invoke(main, ["compile", "--resume", str(out), "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout) == result
    report = CliRunner().invoke(main, ["report", str(out), "--json"])
    assert report.exit_code == 0, report.output
    # the selection is a file of the compile's run directory (its harness artifact)
    chosen = result["selected_hash"]
    harness = out / "artifacts" / chosen[:2] / f"{chosen}.json"
    check = CliRunner().invoke(main, ["harness", "check", str(harness), "--setting", spec])
    assert check.exit_code == 0, check.output
    deployed = CliRunner().invoke(main, [
        "harness", "run", str(harness), "--setting", spec, "--split", "probe",
        "--student", doubles + "student", "--limit", "3", "--sandbox", "subprocess",
        "--out", str(tmp_path / "run")])
    assert deployed.exit_code == 0, deployed.output


@pytest.mark.parametrize(("total", "given", "sizes"), [
    (None, {}, (50, 50, 200)),          # a setting that does not say how many items
    (1000, {}, (50, 50, 200)),          # large enough: the defaults stand
    (12, {}, (3, 3, 6)),                # a quarter, a quarter, the rest
    (30, {}, (7, 7, 16)),
    (3, {}, (1, 1, 1)),
    (12, {"test": 6}, (3, 3, 6)),       # what the given sizes leave is shared out
    (12, {"probe": 10}, (10, 1, 1)),
    (12, {"probe": 4, "validation": 4, "test": 20}, (4, 4, 20)),  # given: kept (refused)
    (2, {}, (50, 50, 200)),             # cannot fit one item per split: refused later
])
def test_fitted_sizes(total, given, sizes) -> None:
    from tether.systems.compile.setting import fitted_sizes

    got = fitted_sizes(total, given)
    assert (got["probe"], got["validation"], got["test"]) == sizes
