"""Parameter declarations (`tether.params`): read without building, one-line errors."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

import pytest
from pydantic import Field

from tether import params
from tether.errors import ConfigError
from tether.registry import Registry


class Refuses:
    """A declared entry whose constructor must never run during validation."""

    roles: ClassVar[tuple[str, ...]] = ("proposer",)

    class Params(params.Params):
        n: Annotated[int, Field(ge=1)] | Literal["auto"] = Field(4, description="samples")
        temperature: float = Field(0.0, description="sampling temperature")
        mode: Literal["fast", "slow"] = "fast"

    def __init__(self, **kwargs: object) -> None:
        raise AssertionError("validation built the entry")


def _registry() -> Registry:
    reg: Registry = Registry("strategy", plural="strategies")
    reg.register("refuses")(Refuses)
    return reg


def test_a_declaration_is_read_without_building_the_entry() -> None:
    checked = _registry().check("refuses", {"n": "auto", "temperature": 1})
    assert isinstance(checked, Refuses.Params) and checked.n == "auto"
    assert checked.temperature == 1 and checked.roles() is None


def test_a_misspelled_parameter_gets_a_suggestion_from_the_declaration() -> None:
    with pytest.raises(ConfigError, match=r"^strategy 'refuses': unknown parameter "
                                          r"'temprature'$") as info:
        _registry().check("refuses", {"temprature": 0.5})
    assert (info.value.hint or "").startswith("did you mean 'temperature'? its parameters: "
                                              "n, temperature, mode")


@pytest.mark.parametrize(("value", "message"), [
    ({"n": "three"}, "parameter n: expected int | 'auto' (got 'three')"),
    ({"n": 0}, "parameter n: Input should be greater than or equal to 1 (got 0)"),
    ({"temperature": "hot"}, "parameter temperature: expected float (got 'hot')"),
    ({"mode": "medium"}, "parameter mode: expected 'fast' | 'slow' (got 'medium')"),
    ({"n": True}, "parameter n: expected int | 'auto' (got True)"),
    ({"n": "3"}, "parameter n: expected int | 'auto' (got '3')"),  # strict: no coercion
])
def test_a_wrong_type_is_one_line_naming_the_parameter_and_the_type(
        value: dict, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        _registry().check("refuses", value)
    assert str(info.value) == f"strategy 'refuses': {message}"
    assert "\n" not in str(info.value)
    assert "tether strategies show refuses" in (info.value.hint or "")


def test_several_bad_parameters_are_counted_on_the_one_line() -> None:
    with pytest.raises(ConfigError, match=r"\(and 1 more parameter\(s\)\)$"):
        _registry().check("refuses", {"n": "x", "mode": "y"})


def known_profile(name: str) -> None:
    if name != "default":
        raise ConfigError(f"unknown profile {name!r}", hint="choose one of: default")


class WithProfile:
    # module level: a declaration's annotations resolve in its module's namespace
    class Params(params.Params):
        profile: Annotated[str, params.checked(known_profile)] = "default"


def test_a_nested_check_keeps_its_own_message_and_hint() -> None:
    reg: Registry = Registry("instrument")
    reg.register("p")(WithProfile)
    with pytest.raises(ConfigError, match="^instrument 'p': parameter profile: unknown "
                                          "profile 'nope'$") as info:
        reg.check("p", {"profile": "nope"})
    assert info.value.hint == "choose one of: default"


def test_an_undeclared_factory_falls_back_to_its_signature() -> None:
    reg: Registry = Registry("strategy")

    @reg.register("old")
    def old(n: int = 1) -> dict:
        return {"n": n}

    assert reg.check("old", {"n": "anything"}) is None  # types are the factory's to check
    with pytest.raises(ConfigError, match="unknown parameter 'm'"):
        reg.check("old", {"m": 1})
    assert reg.build("old", {"n": 2}) == {"n": 2}


def test_build_passes_the_params_as_written_never_coerced() -> None:
    got: list[dict] = []

    class Keeps:
        class Params(params.Params):
            temperature: float = 0.0

        def __init__(self, **kwargs: object) -> None:
            got.append(kwargs)

    reg: Registry = Registry("strategy")
    reg.register("keeps")(Keeps)
    reg.build("keeps", {"temperature": 1})
    assert got == [{"temperature": 1}] and type(got[0]["temperature"]) is int


def test_describe_params_gives_name_type_default_and_description() -> None:
    rows = {p.name: p for p in params.describe_params(Refuses)}
    assert rows["n"] == params.ParamInfo("n", "int | 'auto'", "4", "samples")
    assert rows["mode"].type == "'fast' | 'slow'" and rows["mode"].description == ""

    def plain(k: int = 2) -> None: ...

    assert params.describe_params(plain) == [params.ParamInfo("k", "int", "2")]


#: constructor arguments that callers pass in code, never from a config or spec
_CODE_ONLY = {("geometry", "host"), ("scene_render", "scenes")}


def _registered() -> list[tuple[str, object]]:
    from tether.instruments.base import INSTRUMENTS
    from tether.strategies.base import STRATEGIES

    # tether's own entries (test doubles that tests register are undeclared plugins)
    return [(n, reg.get(n)) for reg in (STRATEGIES, INSTRUMENTS) for n in reg.names()
            if getattr(reg.get(n), "__module__", "").startswith("tether.")]


@pytest.mark.parametrize(("name", "factory"), _registered())
def test_every_builtin_declaration_agrees_with_its_constructor(name: str,
                                                               factory: object) -> None:
    import inspect

    decl = params.declaration(factory)
    assert decl is not None, f"{name} declares no Params"
    fields = decl.model_fields
    sig = inspect.signature(factory)  # type: ignore[arg-type]
    named = {p.name: p for p in sig.parameters.values()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
             and (name, p.name) not in _CODE_ONLY}
    for key, p in named.items():
        assert key in fields, f"{name}: {key} is not declared"
        if p.default is not p.empty:
            assert fields[key].default == p.default, f"{name}.{key}: default differs"
    if not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        assert set(fields) <= set(named), f"{name}: declares what it does not take"


def test_the_agent_declaration_is_agent_config() -> None:
    import dataclasses

    from tether.systems.terminal.agent.loop import AgentConfig
    from tether.systems.terminal.agent.strategy import AgentParams
    from tether.systems.terminal.turn_bon import TurnBoN, TurnBoNPolicy

    config = {f.name: f.default for f in dataclasses.fields(AgentConfig)}
    assert {k: f.default for k, f in AgentParams.model_fields.items()} == config
    import inspect

    policy = {k: p.default for k, p in inspect.signature(TurnBoNPolicy).parameters.items()
              if k.startswith("selector_") and k != "selector_role"}
    declared = TurnBoN.Params.model_fields
    assert {k: declared[k].default for k in policy} == policy
