"""The one parser of `name;key=value;...` specs (instruments, models, feedback parts,
data settings): the one spelling of a spec's options, documented in
docs/reference/specs.md.

Typing rule, the same for every spec: a value is read as JSON when it parses as JSON,
else kept as the string written. So `checks=visible` and `key_env=MY_KEY` are strings,
`concurrency=4` is the int 4, `timeout_s=2.5` a float, `reasoning=true` the bool True,
`weights=[1,2]` a list. A caller that needs a type checks or converts the value itself
(the model registry does, per option) and names the option when it cannot.

Keys and the name are stripped of surrounding spaces; values are kept as written. A
`;` always separates options, and the first `=` of an option separates key and value.

An older spelling a spec form still reads (a data setting's `PATH?metric=NAME`) is
announced once per process with a one-line notice (`old_spelling`).
"""

from __future__ import annotations

import logging
from typing import Any

from tether.errors import ConfigError
from tether.textio import JSONError, loads

#: the old spellings already announced in this process
_ANNOUNCED: set[str] = set()


def parse_value(text: str) -> Any:
    """`text` as JSON when it parses, else the string itself (the one typing rule). JSON
    nested past tether.textio.MAX_DEPTH is not read as JSON (no recursion to overflow)."""
    try:
        return loads(text)
    except JSONError:
        return text


def parse_spec(spec: str, *, what: str = "spec") -> tuple[str, dict[str, Any]]:
    """(name, options) of `name;key=value;...`; ConfigError names the bad option and
    the spec (`what` says which kind of spec, e.g. "instrument spec")."""
    head, *opts = spec.strip().split(";")
    options: dict[str, Any] = {}
    for opt in opts:
        key, sep, value = opt.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"bad option {opt!r} in {what} {spec!r}",
                              hint="write options as name;key=value")
        options[key.strip()] = parse_value(value)
    return head.strip(), options


def old_spelling(old: str, new: str) -> None:
    """A one-line notice, once per process and spelling, that `old` is still read but
    `new` is how a spec writes it now (logged as a warning of the `tether.specs` logger:
    without a logging setup Python prints the line alone on stderr)."""
    if old in _ANNOUNCED:
        return
    _ANNOUNCED.add(old)
    logging.getLogger("tether.specs").warning(
        "notice: %s is an old spelling, still read; write %s", old, new)
