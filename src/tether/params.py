"""Parameter declarations: what a strategy or an instrument accepts, declared once.

A registered class declares its parameters as a nested pydantic model named `Params`
(subclass `Params` below, or any `pydantic.BaseModel` with `extra="forbid"`), is built
from a validated instance of it and reads its values there, never from a second list:

    class BestOfN:
        class Params(tether.params.Params):
            n: int | Literal["auto"] = Field(4, description="samples per trial")
            temperature: float = Field(0.8, description="sampling temperature")

            def roles(self) -> tuple[str, ...]:  # only where the roles depend on params
                ...

        def __init__(self, params: Params | None = None) -> None:
            self.params = params if params is not None else self.Params()

Config validation reads the declaration and constructs nothing: an unknown key is one
error with a "did you mean" hint, a value of the wrong type or out of its bounds is one
error naming the parameter and what it wants. `Registry.build` then hands the validated
instance to the class. Bounds are declared with the field (`Field(ge=1)`); the shared
ones (`Tokens`, `Count`, `Seconds`...) are below, so every token, count and time
parameter is refused the same way, at config load.

A factory without a declaration (a third-party plugin written before them) falls back to
its signature: an unknown keyword is refused with the same hint, types are left to the
constructor, which receives the params as keywords, and a `**kwargs` signature accepts
every name.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticUndefined

from tether.errors import ConfigError, did_you_mean

__all__ = ["Count", "CountFromZero", "ParamInfo", "Params", "Sampling", "Seconds",
           "Temperature", "Tokens", "check_params", "checked", "declaration",
           "describe_params"]

# The bounds shared by every declaration (a value outside one is refused at config load,
# one line naming the parameter): a reply needs room for one token, a count of things
# done at least one (or none, where none is meaningful), a time limit a finite positive
# number of seconds, sampling a finite number of its range.
#: most tokens of one reply (or of a share of them)
Tokens = Annotated[int, Field(ge=1)]
#: how many of something happen: samples, steps, iterations, characters kept
Count = Annotated[int, Field(ge=1)]
#: a count where none is meaningful: retries, extra cycles
CountFromZero = Annotated[int, Field(ge=0)]
#: a time limit in seconds
Seconds = Annotated[float, Field(gt=0, allow_inf_nan=False)]
#: a sampling temperature
Temperature = Annotated[float, Field(ge=0, allow_inf_nan=False)]
#: nucleus sampling's probability mass
Sampling = Annotated[float, Field(gt=0, le=1)]


class Params(BaseModel):
    """Base of a parameter declaration: strict (a config's values are typed TOML/JSON, so
    `"3"` for an int is a mistake, not a conversion) and closed to unknown keys."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    def roles(self) -> tuple[str, ...] | None:
        """The roles the class calls with these params; None (the default) when they
        do not depend on the params: the class's `roles` tuple is read instead."""
        return None


class _Refused(ValueError):
    """A check's ConfigError inside validation, kept whole for its hint."""

    def __init__(self, error: ConfigError) -> None:
        super().__init__(str(error))
        self.error = error


def checked(check: Callable[[Any], object]) -> AfterValidator:
    """A field validator (`Annotated[str, checked(get_profile)]`) that runs an existing
    check of a value, its ConfigError reported as the parameter's problem."""

    def run(value: Any) -> Any:
        try:
            check(value)
        except ConfigError as exc:  # pydantic reports ValueErrors as the field's error
            raise _Refused(exc) from None
        return value

    return AfterValidator(run)


def declaration(factory: Any) -> type[BaseModel] | None:
    """The `Params` model a factory declares, or None (an undeclared plugin)."""
    decl = getattr(factory, "Params", None)
    return decl if isinstance(decl, type) and issubclass(decl, BaseModel) else None


def type_text(annotation: Any) -> str:
    """An annotation as a reader writes it: `int | Literal['auto']`, `str | None`."""
    if annotation is None or annotation is type(None):
        return "None"
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_text(a) for a in typing.get_args(annotation))
    if origin is typing.Literal:
        return " | ".join(repr(a) for a in typing.get_args(annotation))
    if origin is typing.Annotated:
        return type_text(typing.get_args(annotation)[0])
    if origin is not None:
        args = ", ".join(type_text(a) for a in typing.get_args(annotation))
        return f"{getattr(origin, '__name__', str(origin))}[{args}]"
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _signature_names(factory: Callable[..., Any]) -> list[str] | None:
    """The keywords a factory's signature names; None when it takes any (**kwargs) or
    has no signature to read (a builtin: the call decides)."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return None
    return [p.name for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _unknown(what: str, key: str, known: list[str]) -> ConfigError:
    return ConfigError(f"{what}: unknown parameter {key!r}",
                       hint=f"{did_you_mean(key, known)}its parameters: "
                            f"{', '.join(known) or 'none'}")


def _is_type_error(kind: str) -> bool:
    return kind.endswith(("_type", "_parsing")) or kind in ("literal_error", "is_instance_of")


def _one_line(what: str, decl: type[BaseModel], exc: ValidationError,
              see: str) -> ConfigError:
    errs = exc.errors()
    first = errs[0]
    key = str(first["loc"][0]) if first["loc"] else ""
    known = list(decl.model_fields)
    if first["type"] == "extra_forbidden":
        return _unknown(what, key, known)
    field = decl.model_fields.get(key)
    # A union reports one error per member: a bound one (n = 0 for `int >= 1 | 'auto'`)
    # says more than "not a string"; when every member only refused the type, the
    # wanted type is the message.
    same = [e for e in errs if e["loc"][:1] == first["loc"][:1]]
    bound = [e for e in same if not _is_type_error(e["type"])]
    err = bound[0] if bound else first
    if field is not None and not bound and (len(same) > 1 or _is_type_error(first["type"])):
        problem = f"expected {type_text(field.annotation)}"
    else:
        problem = err["msg"].removeprefix("Value error, ")
    got = err.get("input")
    shown = (f" (got {got!r})" if isinstance(got, str | int | float | bool | list)
             and err["type"] != "value_error" else "")
    more = len({e["loc"][:1] for e in errs}) - 1
    tail = f" (and {more} more parameter(s))" if more else ""
    refused = (err.get("ctx") or {}).get("error")
    if isinstance(refused, _Refused):  # a nested check said what is wrong, with its hint
        return ConfigError(f"{what}: parameter {key}: {refused.error}{tail}",
                           hint=refused.error.hint)
    return ConfigError(f"{what}: parameter {key or '(params)'}: {problem}{shown}{tail}",
                       hint=f"its parameters: {', '.join(known)}" + (f" (`{see}`)" if see else ""))


def check_params(what: str, factory: Any, params: Mapping[str, Any], *,
                 see: str = "") -> BaseModel | None:
    """Validate `params` against the factory's declaration, constructing nothing; the
    validated model (None for an undeclared factory, whose signature names are checked).
    `what` names it in the error, e.g. "strategy 'best_of_n'"; `see` is the command that
    shows its parameters, for the hint."""
    decl = declaration(factory)
    if decl is None:
        known = _signature_names(factory) if callable(factory) else None
        if known is not None:
            for key in params:
                if key not in known:
                    raise _unknown(what, key, known)
        return None
    try:
        return decl.model_validate(dict(params))
    except ValidationError as exc:
        raise _one_line(what, decl, exc, see) from None


@dataclass(frozen=True)
class ParamInfo:
    """One parameter as `tether ... show` prints it."""

    name: str
    type: str
    default: str
    description: str = ""

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "type": self.type, "default": self.default,
                "description": self.description}


def describe_params(factory: Any) -> list[ParamInfo]:
    """The parameters a factory declares (its signature's, without descriptions, for an
    undeclared one)."""
    decl = declaration(factory)
    if decl is not None:
        out = []
        for name, field in decl.model_fields.items():
            if field.default is PydanticUndefined and field.default_factory is None:
                default = "required"
            elif field.default_factory is not None:
                default = repr(field.default_factory())  # type: ignore[call-arg]  # no-arg factories only here
            else:
                default = repr(field.default)
            out.append(ParamInfo(name, type_text(field.annotation), default,
                                 field.description or ""))
        return out
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return []
    infos = []
    for p in sig.parameters.values():
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue
        default = "required" if p.default is p.empty else repr(p.default)
        kind = "" if p.annotation is p.empty else str(p.annotation)
        infos.append(ParamInfo(p.name, kind, default))
    return infos
