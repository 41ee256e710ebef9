"""The schema of a worker child's reply line, the only thing the host takes from it.

The child runs model- and task-written code, which can write on the reply channel
itself, so a line is untrusted input: parsed by pydantic-core's parser (nesting bounded,
no recursion in Python), validated strictly (no coercion, unknown keys refused, text
fields capped), and anything else is a `protocol` failure of the child. A reply carries
no path and no size the host acts on: the value goes back to the caller as data.

    {"ready": true}                                          the interpreter is up
    {"ok": true} | {"ok": false, "kind": "load", ...}        the program loaded, or not
    {"id": N, "ok": true, "value": ...}                      a call's value
    {"id": N, "ok": false, "kind": K, "error_type", "message", "traceback"}
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

__all__ = ["MAX_ERROR_CHARS", "WireReply", "parse_wire_reply"]

#: the child sends the tail of an error's message and traceback (4000 characters);
#: room for that, not for a flood smuggled in as an error message
MAX_ERROR_CHARS = 8000

FailureKind = Literal["raised", "unserialisable", "memory", "load", "crash"]


class WireReply(BaseModel):
    """One reply line (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    ready: Literal[True] | None = None
    id: int | None = None
    ok: bool | None = None
    value: Any = None
    kind: FailureKind | None = None
    error_type: str = Field(default="", max_length=500)
    message: str = Field(default="", max_length=MAX_ERROR_CHARS)
    traceback: str = Field(default="", max_length=MAX_ERROR_CHARS)

    @model_validator(mode="after")
    def _one_form(self) -> WireReply:
        if self.ready:
            if self.model_fields_set != {"ready"}:
                raise ValueError("a hello carries nothing else")
            return self
        if self.ok is None:
            raise ValueError("neither a hello nor ok")
        if self.ok and (self.kind is not None or "message" in self.model_fields_set):
            raise ValueError("a success with an error's fields")
        if not self.ok and (self.kind is None or "value" in self.model_fields_set):
            raise ValueError("a failure needs a kind and carries no value")
        return self


def parse_wire_reply(line: bytes) -> tuple[WireReply | None, str]:
    """(reply, "") or (None, why the line is refused)."""
    try:
        return WireReply.model_validate_json(line), ""
    except ValidationError as exc:
        errors = exc.errors()
        if not errors:
            return None, f"malformed reply ({exc})"[:500]
        err = errors[0]
        where = ".".join(str(p) for p in err["loc"]) or "top level"
        msg = err["msg"]
        if err["type"] == "json_invalid":
            return None, f"reply is not JSON: {msg}"[:500]
        return None, f"malformed reply ({where}: {msg})"[:500]
