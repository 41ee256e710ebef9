"""MkDocs hook: fill docs/reference/registries.md from tether's registries at build time.

The tables are built from what the installed code registers (strategies, instruments,
bundled suites, harness settings) and the parameters each declares, so the reference
cannot drift from the code.
"""

from __future__ import annotations

import inspect
from typing import Any

PAGE = "reference/registries.md"


def _first_line(obj: Any) -> str:
    doc = inspect.getdoc(obj) or inspect.getdoc(inspect.getmodule(obj)) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ").replace("|", "\\|")


def _params(factory: Any) -> str:
    # The declared params (tether.params), as `tether strategies show` prints them; long
    # defaults (prompt templates) are left out here.
    from tether.params import describe_params

    parts = []
    for p in describe_params(factory):
        default = "" if p.default == "required" or len(p.default) > 40 else f" = {p.default}"
        parts.append(f"`{p.name}{default}`".replace("|", "\\|"))
    return ", ".join(parts) or "none"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _strategies() -> str:
    from tether.strategies.base import STRATEGIES

    rows = [[f"`{n}`", _first_line(STRATEGIES.get(n)), _params(STRATEGIES.get(n))]
            for n in STRATEGIES.names()]
    return "## Strategies\n\n" + _table(["name", "what it does", "parameters"], rows)


def _instruments() -> str:
    from tether.instruments.base import INSTRUMENTS

    rows = []
    for n in INSTRUMENTS.names():
        f = INSTRUMENTS.get(n)
        grounded = getattr(f, "grounded", None)
        rows.append([f"`{n}`", {True: "yes", False: "no", None: "-"}[grounded],
                     _first_line(f), _params(f)])
    return "## Instruments\n\n" + _table(["name", "grounded", "what it observes",
                                          "options"], rows)


def _suites() -> str:
    from tether.suites.registry import SPEC_FORMS, format_names, suite_names

    forms = _table(["spec", "what"], [[f"`{f.pattern}`", f.description] for f in SPEC_FORMS])
    return ("## Suites\n\nSpec forms:\n\n" + forms + "\n\nBundled suites: "
            + ", ".join(f"`{n}`" for n in suite_names()) + ".\n\nFile formats: "
            + ", ".join(f"`{n}`" for n in format_names()) + ".")


def _settings() -> str:
    from tether.errors import ConfigError
    from tether.systems.compile.setting import get_setting, setting_names

    rows = []
    for n in setting_names():
        try:
            s = get_setting(n)
        except (ConfigError, ImportError) as exc:  # its extra is not installed here: the
            # site still builds (`pip install tether[docs]`), and the row says what it needs
            why = str(exc).replace("|", "\\|")
            rows.append([f"`{n}`", f"(not listed: {why}; install the `harness` extra)", "-",
                         "-"])
            continue
        rows.append([f"`{n}`", _first_line(type(s)),
                     ", ".join(f"`{r}`" for r in getattr(s, "offered_resources", ())) or "-",
                     getattr(s, "aggregation", "pass rate")])
    return "## Harness settings\n\n" + _table(["name", "what", "resources", "aggregation"],
                                              rows)


SECTIONS = {"strategies": _strategies, "instruments": _instruments, "suites": _suites,
            "settings": _settings}


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    for key, build in SECTIONS.items():
        markdown = markdown.replace(f"<!-- registries:{key} -->", build())
    return markdown
