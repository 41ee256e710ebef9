"""The harness-compilation sections of a run directory, at the end of its page: the
interventions of its `compiled_harness` trials, and the HC section of every `tether
compile` build directory inside it (numbers: report/harness.py; templates
interventions_table.html.j2 and harness_section.html.j2)."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment
from pydantic import BaseModel, ConfigDict

from tether.report.harness import build_dirs, hc_numbers, run_interventions
from tether.report.section import Section, SectionInput, register_section


class HarnessInterventions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    harness: str  # the harness hash
    rows: list[dict[str, Any]]  # report.harness.intervention_rows


class InterventionNumbers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    harnesses: list[HarnessInterventions]


class BuildNumbers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    builds: list[dict[str, Any]]  # report.harness.hc_numbers of each build directory


@register_section
class InterventionsSection(Section):
    name = "interventions"
    numbers_model = InterventionNumbers
    template = "interventions_table.html.j2"
    order = 10
    placement = "end"

    def compute(self, run: SectionInput) -> InterventionNumbers | None:
        found = run_interventions(run.entries)
        return InterventionNumbers.model_validate({"harnesses": found}) if found else None

    def render(self, env: Environment, numbers: dict[str, Any]) -> str:
        table = env.get_template(self.template)
        return "\n".join(
            f"<h2>Interventions on harness <code>{block['harness'][:12]}</code> "
            "(paired against it on matched items)</h2>\n"
            + table.render(interventions=block["rows"]) for block in numbers["harnesses"])


@register_section
class BuildsSection(Section):
    name = "harness_builds"
    numbers_model = BuildNumbers
    template = "harness_section.html.j2"
    order = 20
    placement = "end"

    def compute(self, run: SectionInput) -> BuildNumbers | None:
        found = [hc_numbers(path) for path in build_dirs(run.run_dir)]
        return BuildNumbers(builds=found) if found else None

    def render(self, env: Environment, numbers: dict[str, Any]) -> str:
        section = env.get_template(self.template)
        return "\n".join("<h2>Harness compilation</h2>\n" + section.render(hc=hc)
                         for hc in numbers["builds"])
