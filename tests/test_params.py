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


def test_build_hands_a_declared_entry_its_validated_params() -> None:
    got: list[object] = []

    class Keeps:
        class Params(params.Params):
            temperature: float = 0.0
            n: int = 2

        def __init__(self, validated: object) -> None:
            got.append(validated)

    reg: Registry = Registry("strategy")
    reg.register("keeps")(Keeps)
    reg.build("keeps", {"temperature": 1})
    (built,) = got
    assert isinstance(built, Keeps.Params)
    assert built.temperature == 1.0 and built.n == 2  # the defaults filled in, once


def test_describe_params_gives_name_type_default_and_description() -> None:
    rows = {p.name: p for p in params.describe_params(Refuses)}
    assert rows["n"] == params.ParamInfo("n", "int | 'auto'", "4", "samples")
    assert rows["mode"].type == "'fast' | 'slow'" and rows["mode"].description == ""

    def plain(k: int = 2) -> None: ...

    assert params.describe_params(plain) == [params.ParamInfo("k", "int", "2")]


#: constructor arguments that callers pass in code, never from a config or spec
_CODE_ONLY = {("geometry", "host"), ("scene_render", "scenes")}
#: the values of required parameters, to build an entry that has some
_REQUIRED = {"compiled_harness": {"harness": "bare"}}


def _registered() -> list[tuple[str, str, object]]:
    from tether.instruments.base import INSTRUMENTS
    from tether.strategies.base import STRATEGIES

    # tether's own entries (test doubles that tests register are undeclared plugins)
    return [(reg.kind, n, reg.get(n)) for reg in (STRATEGIES, INSTRUMENTS)
            for n in reg.names()
            if getattr(reg.get(n), "__module__", "").startswith("tether.")]


@pytest.mark.parametrize(("kind", "name", "factory"), _registered())
def test_every_builtin_is_built_from_its_declaration_alone(kind: str, name: str,
                                                           factory: object) -> None:
    """A parameter is declared once: the constructor takes the validated `Params` (and
    code-only objects, keyword-only), never a parameter of its own with a default."""
    import inspect

    decl = params.declaration(factory)
    assert decl is not None, f"{name} declares no Params"
    sig = inspect.signature(factory)  # type: ignore[arg-type]
    taken = [p for p in sig.parameters.values() if p.kind is not p.KEYWORD_ONLY]
    assert [p.name for p in taken] == ["params"], f"{name}: {list(sig.parameters)}"
    for p in sig.parameters.values():
        if p.kind is p.KEYWORD_ONLY:
            assert (name, p.name) in _CODE_ONLY and p.name not in decl.model_fields
    validated = decl.model_validate(_REQUIRED.get(name, {}))
    assert factory(validated).params is validated  # type: ignore[operator]


def _numbers(decl: type) -> list[tuple[str, bool]]:
    """(name, is_float) of each numeric field of a declaration."""
    out = []
    for key, field in decl.model_fields.items():  # type: ignore[attr-defined]
        text = params.type_text(field.annotation)
        if "int" in text.split(" | ") or "float" in text.split(" | "):
            out.append((key, "float" in text.split(" | ")))
    return out


_NUMERIC = [(kind, name, key, is_float) for kind, name, factory in _registered()
            for key, is_float in _numbers(params.declaration(factory))]  # type: ignore[arg-type]


@pytest.mark.parametrize(("kind", "name", "key", "is_float"), _NUMERIC,
                         ids=[f"{n}.{k}" for _, n, k, _ in _NUMERIC])
def test_every_token_count_and_time_parameter_has_its_bound(kind: str, name: str, key: str,
                                                            is_float: bool) -> None:
    from tether.instruments.base import INSTRUMENTS
    from tether.strategies.base import STRATEGIES

    reg = STRATEGIES if kind == "strategy" else INSTRUMENTS
    with pytest.raises(ConfigError, match=f"^{kind} '{name}': parameter {key}: ") as info:
        reg.check(name, {key: -1})
    assert "\n" not in str(info.value)
    if is_float:
        with pytest.raises(ConfigError, match=f"parameter {key}: "):
            reg.check(name, {key: float("inf")})


@pytest.mark.parametrize(("name", "key", "value"), [
    ("single_shot", "max_tokens", 0), ("best_of_n", "max_tokens", 0),
    ("best_of_n", "n", 0), ("self_loop", "max_tokens", -1), ("iad", "k", 0),
    ("proposer_reviewer", "reviewer_max_tokens", 0), ("reasoning", "max_tokens", 0),
    ("agent", "step_limit", 0), ("agent", "command_timeout_s", 0.0),
    ("turn_bon", "selector_max_tokens", 0), ("trajectory_bon", "n", 0),
    ("vetr", "timeout_s", float("nan")), ("blender_alchemy", "depth", 0),
])
def test_an_out_of_bound_value_is_one_line_naming_the_parameter(name: str, key: str,
                                                                 value: object) -> None:
    from tether.strategies.base import STRATEGIES

    with pytest.raises(ConfigError) as info:
        STRATEGIES.check(name, {key: value})
    text = str(info.value)
    assert text.startswith(f"strategy '{name}': parameter {key}: ") and "\n" not in text
    assert f"tether strategies show {name}" in (info.value.hint or "")
