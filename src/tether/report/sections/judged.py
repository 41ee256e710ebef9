"""The Judged section: what `tether judge` wrote for the run (numbers: report/judged.py;
plots: report/judged_plots.py; template: judged.html.j2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from tether.report.judged import judged_numbers
from tether.report.judged_plots import draw_judged
from tether.report.section import Section, SectionInput, register_section, validated

Number = int | float


class JudgedNumbers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    behaviours: list[dict[str, Any]]  # per rubric file: arms, rates, agreement
    reward_hacking: list[dict[str, Any]]  # per (arm, budget)
    analysis: dict[str, Any]  # which statistics and sample (report/judged_paper.py)
    judge_models: list[str]
    n_calls: int
    output_tokens: int
    ci: Number
    n_resamples: int
    seed: int
    method: str


@register_section
class JudgedSection(Section):
    name = "judged"
    numbers_model = JudgedNumbers
    template = "judged.html.j2"
    order = 20

    def compute(self, run: SectionInput) -> JudgedNumbers | None:
        options = run.store.config().get("report") or {}
        analysis = (options.get("judge_statistics", "tether"),
                    options.get("judge_sample", "all"))
        found = judged_numbers(str(run.store.dir), run.entries, run.baseline, analysis)
        return validated(JudgedNumbers, found)

    def draw(self, numbers: dict[str, Any] | None, assets: Path) -> Any:
        return draw_judged(numbers, assets)
