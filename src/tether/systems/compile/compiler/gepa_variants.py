"""What the GEPA comparator may change in a harness: tether's prompt, content and
structured variants (`gepa_variant`).

Paper 001 (its Table 42) reports GEPA-prompt, GEPA-content and GEPA-structured without
defining them; these are tether's definitions. GEPA's candidate is a set of named texts;
each variant says which parts of a `tether-harness/1` document are such texts, and every
other part stays the bare harness's:

- `prompt`: the prompt templates; resources, decode, answer mode and hooks stay bare's.
- `content`: the prompt templates and `@resources` (the resources object as JSON:
  which of the setting's resources fill the prompt, with their options: OCR text, the
  fact store, a context field); decode, answer mode and hooks stay bare's.
- `structured`: those, `@output` (decode and answer mode as JSON) and `@parse` (the
  parse hook's source; empty: none); the route and select_lines hooks stay bare's (none).

So `content` searches what the student reads as well as how it is asked, and
`structured` also the shape of the output and how the answer is taken from it; none of
them may write a router (the compile's own loop is the search over control). A component
that does not parse (JSON that is not an object, an output field of the wrong type) is
a candidate with a violation: it scores 0 on every item and GEPA's feedback says why.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ValidationError

from tether.systems.compile.harness import Harness, canonical_json

__all__ = ["GEPA_VARIANTS", "OUTPUT", "PARSE", "RESOURCES", "GepaVariant", "candidate_of",
           "harness_of", "searched_parts"]

GepaVariant = Literal["prompt", "content", "structured"]
GEPA_VARIANTS: tuple[GepaVariant, ...] = ("prompt", "content", "structured")
#: the components that are not prompt templates ("@" is in no prompt name a teacher
#: writes in practice, and a prompt so named is refused below rather than confused)
RESOURCES, OUTPUT, PARSE = "@resources", "@output", "@parse"
_EXTRA: dict[str, tuple[str, ...]] = {"prompt": (), "content": (RESOURCES,),
                                      "structured": (RESOURCES, OUTPUT, PARSE)}
_PARTS = {"prompt": ("prompts",), "content": ("prompts", "resources"),
          "structured": ("prompts", "resources", "decode", "answer_mode", "hooks.parse")}


def searched_parts(variant: str) -> tuple[str, ...]:
    """The parts of the harness document the variant lets GEPA change."""
    return _PARTS[variant]


def candidate_of(harness: Harness, variant: str) -> dict[str, str]:
    """The harness's parts the variant searches, as GEPA's named texts."""
    candidate = dict(harness.prompts)
    extra = _EXTRA[variant]
    if RESOURCES in extra:
        candidate[RESOURCES] = canonical_json(harness.resources)
    if OUTPUT in extra:
        candidate[OUTPUT] = canonical_json({"decode": harness.decode.model_dump(),
                                            "answer_mode": harness.answer_mode})
    if PARSE in extra:
        candidate[PARSE] = harness.hooks.parse or ""
    return candidate


def harness_of(base: Harness, candidate: Mapping[str, str], variant: str
               ) -> tuple[Harness | None, list[str]]:
    """`base` with the parts the variant searches taken from `candidate`: the harness, or
    None and why not (teacher-safe: names the component, never an item)."""
    extra = _EXTRA[variant]
    doc: dict[str, Any] = base.document()
    doc["prompts"] = {k: v for k, v in candidate.items() if not k.startswith("@")}
    unknown = sorted(k for k in candidate if k.startswith("@") and k not in extra)
    if unknown:
        return None, [f"{unknown[0]}: not searched by the {variant} variant"]
    try:
        if RESOURCES in candidate:
            doc["resources"] = _object(candidate[RESOURCES], RESOURCES)
        if OUTPUT in candidate:
            output = _object(candidate[OUTPUT], OUTPUT)
            if set(output) - {"decode", "answer_mode"}:
                raise ValueError(f"{OUTPUT}: only decode and answer_mode may be set")
            doc.update(output)
        if PARSE in candidate:
            hooks = {k: v for k, v in doc["hooks"].items() if k != "parse"}
            if candidate[PARSE].strip():
                hooks["parse"] = candidate[PARSE]
            doc["hooks"] = hooks
        return Harness.model_validate(doc), []
    except ValidationError as exc:
        err = exc.errors()[0]
        return None, [f"schema: {'.'.join(map(str, err['loc']))}: {err['msg']}"]
    except ValueError as exc:
        return None, [str(exc)]


def _object(text: str, name: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name}: not JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{name}: not a JSON object")
    return value
