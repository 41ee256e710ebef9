"""Reading structured answers out of a model's free-text reply.

Models asked for "JSON only" still wrap it in prose, code fences or private reasoning.
One lenient reader serves every caller (critique, the screenshot judge, the selector,
the reviewer); the differences between them are its parameters:

- `kind`: which values count, "object", "array" or "any" (either);
- `fenced`: look inside ```json (or bare ```) blocks first, then in the whole text;
- `strip_think`: drop `<think>` blocks first (an unclosed one runs to the end of the
  text: thinking that was cut off never counts as the answer);
- `accept`: a predicate a value must also satisfy, so a caller looking for a shape
  (e.g. `{"issues": [...]}`) skips earlier values of another shape.

A value is read with `json.JSONDecoder.raw_decode` from each `{` / `[` in turn, so
text after the value (a second object, a closing remark with braces) does not spoil it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any, Literal

Kind = Literal["object", "array", "any"]

_THINK = re.compile(r"<think>.*?(</think>|$)", re.S)
_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.S)
_OPENERS: dict[str, str] = {"object": "{", "array": "[", "any": "{["}
_TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,),
                                       "any": (dict, list)}


class NoJSONError(ValueError):
    """The reply holds no JSON value of the wanted kind."""


def strip_private_reasoning(text: str) -> str:
    """The reply without `<think>` blocks (an unclosed one runs to the end of the text)."""
    return _THINK.sub("", text).strip()


def json_values(text: str, *, kind: Kind = "object", fenced: bool = False,
                strip_think: bool = False) -> Iterator[Any]:
    """The JSON value of `kind` starting at each `{` / `[` of `text`, in reading order
    (fenced blocks first when `fenced`): a nested value comes right after the one
    holding it, so a predicate can look for a shape at any depth."""
    if strip_think:
        text = strip_private_reasoning(text)
    chunks = [m.group(1) for m in _FENCE.finditer(text)] if fenced else []
    chunks.append(text)
    decoder = json.JSONDecoder()
    openers, types = _OPENERS[kind], _TYPES[kind]
    for chunk in chunks:
        for i, ch in enumerate(chunk):
            if ch not in openers:
                continue
            try:
                value, _ = decoder.raw_decode(chunk, i)
            except ValueError:
                continue
            if isinstance(value, types):
                yield value


def first_json(text: str, *, kind: Kind = "object", fenced: bool = False,
               strip_think: bool = False,
               accept: Callable[[Any], bool] | None = None) -> Any:
    """The first JSON value of `kind` in `text` that `accept` (if given) takes;
    NoJSONError (a ValueError) when there is none."""
    for value in json_values(text, kind=kind, fenced=fenced, strip_think=strip_think):
        if accept is None or accept(value):
            return value
    wanted = {"object": "JSON object", "array": "JSON array", "any": "JSON value"}[kind]
    raise NoJSONError(f"no {wanted} found in the answer")


def json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object of a reply, fenced blocks first, or None: for callers to
    whom a missing object is an outcome to record (a teacher's unparseable proposal)
    rather than an error to raise."""
    try:
        return first_json(text, kind="object", fenced=True)
    except NoJSONError:
        return None
