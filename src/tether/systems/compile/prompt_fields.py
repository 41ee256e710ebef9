"""Static check of the fields a harness's prompt templates name.

A template placeholder is filled from the observation (`item_id`, `question` and one
field per enabled resource) merged with the vars of the route hook's `call_student`.
A name that is neither is a certain hook error on every item that uses the prompt, so
admissibility reports it before any run (as a `schema` violation), not only through the
smoke run:

- observation fields: `item_id`, `question`, and for each resource the harness enables,
  the field the setting puts it under (the resource's own name unless the setting maps it
  in `resource_fields`, as `flags` maps `cards` to `candidates`);
- route vars: every string constant in the route hook that is a Python identifier. This
  over-approximates (a constant used for anything else counts too), so a harness that
  builds its vars from literal names, `{"card": ...}` or `vars[name]` over a tuple of
  names, is never rejected; a name that appears nowhere in the route cannot be a var.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from tether.systems.compile.harness import Harness, TemplateError, template_fields

__all__ = ["BASE_FIELDS", "observation_fields", "route_names", "unknown_fields"]

#: the fields every observation has, whatever the resources
BASE_FIELDS = ("item_id", "question")


def observation_fields(setting: Any, resources: Mapping[str, Any]) -> set[str]:
    """The observation fields a harness enabling `resources` can get from `setting`."""
    mapping: Mapping[str, str] = getattr(setting, "resource_fields", {}) or {}
    return {*BASE_FIELDS, *(mapping.get(name, name) for name, spec in resources.items()
                            if spec)}


def route_names(source: str | None) -> set[str]:
    """Identifier-shaped string constants of the route hook (its possible var names);
    empty when there is no route or it does not parse (the hooks check reports that)."""
    if not source:
        return set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value.isidentifier()}


def unknown_fields(harness: Harness, setting: Any) -> list[str]:
    """One line per prompt placeholder that no observation field or route var can fill."""
    known = observation_fields(setting, harness.resources)
    from_route = route_names(harness.hooks.route)
    out = []
    for name, text in sorted(harness.prompts.items()):
        try:
            fields = template_fields(text)
        except TemplateError:
            continue  # reported by the brace check
        for field in dict.fromkeys(fields):
            if field not in known and field not in from_route:
                where = "or a var the route hook sets" if harness.hooks.route else \
                    "(there is no route hook to set vars)"
                out.append(f"prompts.{name}: unknown field {{{field}}}: not an observation "
                           f"field of {setting.name} with the enabled resources "
                           f"({', '.join(sorted(known))}) {where}")
    return out
