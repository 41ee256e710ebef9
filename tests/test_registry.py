"""`Registry[T]`: register, names, look-up and build with a known-names hint."""

import pytest

from tether.errors import ConfigError
from tether.registry import Registry


def make() -> tuple[Registry, list[int]]:
    loads: list[int] = []
    reg: Registry = Registry("widget", load=lambda: loads.append(1))

    @reg.register("b")
    def b(size: int = 1) -> tuple[str, int]:
        return ("b", size)

    reg.register("a")(lambda: ("a", 0))
    return reg, loads


def test_names_are_sorted_and_the_first_lookup_loads():
    reg, loads = make()
    assert reg.registered("a") and not reg.registered("z") and loads == []
    assert reg.names() == ["a", "b"] and "a" in reg and "z" not in reg
    assert len(loads) == 1  # once: the installed entry points do not change in a process


def test_a_load_that_failed_is_tried_again():
    calls: list[int] = []

    def load() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise ImportError("a plugin's extra is missing")

    reg: Registry = Registry("widget", load=load)
    with pytest.raises(ImportError):
        reg.names()
    assert reg.names() == [] and reg.names() == [] and len(calls) == 2


def test_a_declared_plugin_does_not_replace_an_entry_of_the_same_name():
    reg, _ = make()
    reg.register("a", replace=False)(lambda: ("plugin", 0))
    assert reg.build("a") == ("a", 0)
    reg.register("c", replace=False)(lambda: ("c", 0))
    assert reg.build("c") == ("c", 0)


def test_other_forms_of_name_end_the_unknown_name_hint():
    reg: Registry = Registry("setting", forms="jsonl:PATH, module:attr")
    reg.register("toy")(lambda: None)
    with pytest.raises(ConfigError) as err:
        reg.get("tyo")
    assert err.value.hint == "did you mean 'toy'? known settings: toy; or jsonl:PATH, module:attr"


def test_a_lookup_tries_the_module_named_like_the_entry_before_loading_all():
    calls: list[str] = []

    def find(name: str) -> None:  # stands for importing the module named like the entry
        calls.append(name)
        if name == "c":
            reg.register("c")(1)

    reg: Registry = Registry("widget", load=lambda: calls.append("all"), find=find)
    assert reg.get("c") == 1 and calls == ["c"]  # found alone: nothing else loaded
    with pytest.raises(ConfigError):
        reg.get("d")
    assert calls == ["c", "d", "all"]  # not found alone: everything is loaded


def test_import_named_imports_only_the_module_or_plugin_of_that_name():
    import subprocess
    import sys

    code = ("import sys\n"
            "from tether.registry import import_named\n"
            "import_named('tether.instruments', 'execution', plugins='tether.instruments')\n"
            "import_named('tether.strategies', 'single_shot', plugins='tether.strategies')\n"
            "import_named('tether.suites', 'no-such name', plugins='tether.suites')\n"
            "import_named('tether.suites', 'nothing_by_this_name', plugins='tether.suites')\n"
            "mods = sorted(m for m in sys.modules if m.startswith('tether.systems.'))\n"
            "print(mods, 'tether.strategies.single_shot' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == ("['tether.systems.code', 'tether.systems.code.execution', "
                           "'tether.systems.code.pytest_runner', "
                           "'tether.systems.code.sandboxed_python'] True")


def test_build_calls_the_factory_with_the_params():
    reg, _ = make()
    assert reg.build("b", {"size": 3}) == ("b", 3)
    assert reg.build("a") == ("a", 0)


def test_unknown_name_lists_the_known_ones():
    reg, _ = make()
    with pytest.raises(ConfigError, match=r"unknown widget 'z' in 'z;x=1'") as err:
        reg.get("z", where=" in 'z;x=1'")
    assert err.value.hint == "known widgets: a, b"
    plural = Registry("strategy", plural="strategies")
    with pytest.raises(ConfigError) as err:
        plural.get("x")
    assert err.value.hint == "known strategies: "


def test_bad_parameters_are_config_errors_naming_them():
    reg, _ = make()
    with pytest.raises(ConfigError, match=r"widget 'b': unknown parameter 'colour'"):
        reg.build("b", {"colour": 1})


def test_layers_above_register_through_declared_entry_points_not_named_modules():
    from importlib.metadata import entry_points

    from tether.instruments.base import instrument_names
    from tether.strategies import strategy_names
    from tether.suites.registry import format_names

    declared = {g: {e.value for e in entry_points(group=g)}
                for g in ("tether.strategies", "tether.instruments", "tether.suites")}
    assert "tether.systems.compile.strategy" in declared["tether.strategies"]
    assert {"tether.systems.scene.instrument", "tether.systems.compile.instrument"} <= declared[
        "tether.instruments"]
    assert "tether.studies.interaction_scaling.code_format" in declared["tether.suites"]
    assert "compiled_harness" in strategy_names()
    assert {"scene_render", "harness_answer"} <= set(instrument_names())
    assert "interaction-scaling/code" in format_names()


def test_import_modules_tolerates_only_what_it_is_told_to(monkeypatch):
    from tether import registry

    class Broken:
        value = "tether.no_such_plugin_module"

    monkeypatch.setattr(registry, "declared_plugins", lambda group: [Broken.value])
    failed = registry.import_modules("tether.stats", plugins="x", tolerate="plugins")
    assert list(failed) == ["tether.no_such_plugin_module"]
    with pytest.raises(ImportError):
        registry.import_modules("tether.stats", plugins="x")


def test_a_misspelled_parameter_is_refused_before_the_factory_runs_with_a_suggestion() -> None:
    built: list[dict] = []
    reg: Registry = Registry("strategy")

    @reg.register("best")
    def best(n: int = 1, temperature: float = 0.0) -> dict:
        built.append({"n": n})
        return {"n": n, "temperature": temperature}

    with pytest.raises(ConfigError, match="unknown parameter 'temprature'") as info:
        reg.build("best", {"n": 2, "temprature": 0.5})
    assert "did you mean 'temperature'?" in (info.value.hint or "") and built == []
    assert reg.build("best", {"n": 2, "temperature": 0.5}) == {"n": 2, "temperature": 0.5}


def test_a_misspelled_name_gets_a_suggestion_before_the_known_ones() -> None:
    reg: Registry = Registry("strategy", plural="strategies")
    reg.register("best_of_n")(lambda: None)
    reg.register("single_shot")(lambda: None)
    with pytest.raises(ConfigError, match="unknown strategy 'best_of'") as err:
        reg.get("best_of")
    assert err.value.hint == "did you mean 'best_of_n'? known strategies: best_of_n, single_shot"
