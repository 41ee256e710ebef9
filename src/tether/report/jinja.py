"""The report's template environment: the bundled templates, autoescaped, failing on any
undefined name (StrictUndefined), with the number formatters as filters. The index page,
the trial pages, the sections and the HC report all render through it."""

from __future__ import annotations

import json
from typing import Any

from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined

from tether.report.formatting import effect, fmt, pvalue, score, value
from tether.runs import fmt_usd


def to_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str)


def environment() -> Environment:
    # the hub's templates first, then those of each package a registered section names
    from tether.report.section import sections

    packages = dict.fromkeys(["tether.report", *(s.templates for s in sections())])
    loader = ChoiceLoader([PackageLoader(p, "templates") for p in packages])
    env = Environment(loader=loader, autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    env.filters.update(fmt=fmt, pvalue=pvalue, pretty=to_json, score=score, effect=effect,
                       value=value, usd=fmt_usd)
    return env
