"""The report's template environment: the bundled templates, autoescaped, failing on any
undefined name (StrictUndefined), with the number formatters as filters. The index page,
the trial pages, the sections and the HC report all render through it."""

from __future__ import annotations

import json
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from tether.report.fmt import effect, fmt, pvalue, score, value


def to_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str)


def environment() -> Environment:
    env = Environment(loader=PackageLoader("tether.report", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    env.filters.update(fmt=fmt, pvalue=pvalue, pretty=to_json, score=score, effect=effect,
                       value=value)
    return env
