"""The harness artifact `tether-harness/1`: one JSON document, validated, hashed.

    {"schema": "tether-harness/1", "setting": "docs",
     "prompts": {"answer": "...{question}...{ocr}..."},
     "decode": {"max_tokens": 64, "temperature": 0.0},
     "resources": {"ocr": {"max_chars": 2000}},
     "answer_mode": "defer",
     "hooks": {"route": "def route(obs, state): ...", "parse": "def parse(text, item): ..."}}

Known keys only (pydantic, extra="forbid"). Its identity is the sha256 of the canonical
serialization (sorted keys, separators "," and ":", UTF-8), with defaults filled in and
absent hooks left out, so two files that mean the same harness share one hash.

Prompt templates are filled by plain substitution of `{name}` placeholders, where name
is an identifier naming an observation field or a route var: no format specs, no
attribute or index access, no escapes. Teacher-written text is rendered on the host, so
a template language would be an injection path; any other brace is an error, and so is
a placeholder with no value (never an empty string).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tether.errors import ConfigError, TetherError
from tether.textio import JSONError, loads, read_text

__all__ = ["SCHEMA", "Decode", "Harness", "Hooks", "TemplateError", "bare_harness",
           "canonical_json", "load_harness", "read_harness_document", "render_template",
           "template_fields"]

SCHEMA: Final = "tether-harness/1"
AnswerMode = Literal["verdict", "suggest", "defer"]


class Decode(BaseModel):
    """Decoding of every student call of the harness."""

    model_config = ConfigDict(extra="forbid")
    max_tokens: int = Field(default=64, ge=1)
    temperature: float = Field(default=0.0, ge=0.0)


class Hooks(BaseModel):
    """Python source of the optional hooks (run only in the sandboxed worker)."""

    model_config = ConfigDict(extra="forbid")
    route: str | None = None  # def route(obs, state) -> dict
    parse: str | None = None  # def parse(text, item) -> str
    select_lines: str | None = None  # def select_lines(card, question) -> list[str]

    def present(self) -> dict[str, str]:
        """The hooks that are defined, by name."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


class Harness(BaseModel):
    """A `tether-harness/1` document (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")
    schema_: Literal["tether-harness/1"] = Field(alias="schema")
    setting: str = Field(min_length=1)
    prompts: dict[str, str]
    decode: Decode = Field(default_factory=Decode)
    resources: dict[str, Any] = Field(default_factory=dict)
    answer_mode: AnswerMode = "defer"
    hooks: Hooks = Field(default_factory=Hooks)

    def document(self) -> dict[str, Any]:
        """The JSON document (defaults filled, absent hooks left out)."""
        doc = self.model_dump(mode="json", by_alias=True)
        doc["hooks"] = self.hooks.present()
        return doc

    @property
    def hash(self) -> str:
        """sha256 (hex) of the canonical serialization: the harness's identity."""
        return hashlib.sha256(canonical_json(self.document()).encode()).hexdigest()

    def hook_program(self) -> str:
        """All hook sources as one module (what the sandboxed worker loads)."""
        return "\n\n".join(src.rstrip() + "\n" for src in self.hooks.present().values())


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def bare_harness(setting: str, *, max_tokens: int = 64) -> Harness:
    """The bare student: the plain question, no resources, no hooks."""
    return Harness(schema=SCHEMA, setting=setting, prompts={"answer": "{question}"},
                   decode=Decode(max_tokens=max_tokens))


def read_harness_document(path: str | Path) -> Any:
    """The parsed JSON of a harness file; ConfigError when unreadable or not JSON."""
    text = read_text(path, what="harness")  # bounded; a FIFO or a device is refused
    try:
        return loads(text)
    except JSONError as exc:
        raise ConfigError(f"harness {path} is not JSON: {exc}") from None


def load_harness(path: str | Path) -> Harness:
    """The validated harness in `path`; ConfigError naming the first schema problem."""
    doc = read_harness_document(path)
    try:
        return Harness.model_validate(doc)
    except ValidationError as exc:
        raise ConfigError(f"harness {path} is not {SCHEMA}: {_first_error(exc)}",
                          hint="tether harness check FILE --setting S lists every violation"
                          ) from None


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "document"
    return f"{where}: {err['msg']}"


# --- templates -----------------------------------------------------------------------

class TemplateError(TetherError):
    """A prompt template with a bad brace, or a placeholder with no value."""


_TOKEN = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}|[{}]")


def template_fields(template: str) -> list[str]:
    """The placeholder names of `template` in order; TemplateError on any other brace."""
    names: list[str] = []
    for match in _TOKEN.finditer(template):
        if match.group(1) is None:
            line = template.count("\n", 0, match.start()) + 1
            raise TemplateError(f"stray {match.group(0)!r} at line {line}, column "
                                f"{match.start() - template.rfind(chr(10), 0, match.start())}: "
                                "only {field} placeholders are allowed")
        names.append(match.group(1))
    return names


def render_template(template: str, values: Mapping[str, Any]) -> str:
    """`template` with each `{name}` replaced by `values[name]`, in one pass (a value
    containing braces is not expanded again). Strings go in as they are, other values
    as compact JSON. TemplateError on a bad brace or a missing name."""
    template_fields(template)  # rejects stray braces before anything is substituted
    missing = [n for n in template_fields(template) if n not in values]
    if missing:
        raise TemplateError(f"no value for {{{missing[0]}}}; available: "
                            f"{', '.join(sorted(values)) or 'none'}")
    return _TOKEN.sub(lambda m: _as_text(values[m.group(1)]), template)


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
