"""The paper tables `tether reproduce` can recompute from a study's recorded data.

Each entry names a table or figure of one paper, the files (relative to `--data`) its
numbers come from, and the function that recomputes them with that paper's own rules.
The functions live in the study's package and are imported only when that table is
asked for, so `tether reproduce list` loads nothing heavy.

A table's result is plain JSON: `{"table", "paper", "title", "convention", "rows",
...}`, where `convention` states how the numbers were computed (which SD, which
bootstrap, which seed) and `rows` holds one object per row of the paper's table.
Rows the recorded data cannot give are listed under `not_recorded`, never invented.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.errors import ConfigError, did_you_mean

INTERACTION_SCALING = "Interaction Scaling: Grounding the Third Axis of Test-Time Compute"
#: the layout --data must have (the reference folder of the interaction-scaling study;
#: `tether.studies.cli` repeats it, so --help imports no table)
IS_LAYOUT = "a folder in the layout of shared/reference/interaction-scaling"


@dataclass(frozen=True)
class PaperTable:
    """One reproducible table: its id, where it is in the paper, what it needs."""

    id: str
    paper: str
    title: str
    #: files or folders under --data the numbers come from
    needs: tuple[str, ...]
    #: "module:function" of `function(data_dir: Path) -> dict`
    target: str

    def missing(self, data: Path) -> list[str]:
        """The needed paths that are not under `data`."""
        return [n for n in self.needs if not (data / n).exists()]

    def compute(self, data: Path) -> dict[str, Any]:
        """The table's JSON; ConfigError (one line, with a hint) when data is missing."""
        if not data.is_dir():
            raise ConfigError(f"--data {data} is not a directory",
                              hint=f"point --data at {IS_LAYOUT}")
        missing = self.missing(data)
        if missing:
            raise ConfigError(f"{self.id} needs {', '.join(missing)} under {data}",
                              hint=f"point --data at {IS_LAYOUT}")
        module, _, name = self.target.partition(":")
        function: Callable[[Path], dict[str, Any]] = getattr(
            importlib.import_module(module), name)
        return {"table": self.id, "paper": self.paper, "title": self.title,
                **function(data)}


_IS_CODE = "tether.studies.interaction_scaling.code_tables"
_IS_VISUAL = "tether.studies.interaction_scaling.visual_tables"
_RECORDED = "recorded/code"

TABLES: tuple[PaperTable, ...] = (
    PaperTable("is-table2", INTERACTION_SCALING,
               "Table 2 / Figure 5: pass rate by strategy and budget (R, S, L, H)",
               (f"{_RECORDED}/code_4strategy_seeds.json",), f"{_IS_CODE}:table2"),
    PaperTable("is-table4", INTERACTION_SCALING,
               "Table 4 / Figure 9: feedback-channel controls on the code suite",
               (f"{_RECORDED}/feedback_types/code_type1.json",
                f"{_RECORDED}/feedback_types/code_type2.json",
                f"{_RECORDED}/phase1/code_results.json"), f"{_IS_CODE}:table4"),
    PaperTable("is-table5", INTERACTION_SCALING,
               "Table 5 / Figure 7: single-agent loop, IAD and the harness at B = 20K",
               (f"{_RECORDED}/code_4strategy_seeds.json",
                f"{_RECORDED}/iad_baseline/code_iad.json"), f"{_IS_CODE}:table5"),
    PaperTable("is-table6", INTERACTION_SCALING,
               "Table 6 / Figure 12: geometric-feedback defect reductions per modality",
               tuple(f"recorded/visual/{m}" for m in ("figures", "slides", "web",
                                                       "animations")),
               f"{_IS_VISUAL}:table6"),
    PaperTable("is-table7", INTERACTION_SCALING,
               "Table 7 / Figure 8: cross-model replication on the code suite",
               tuple(f"{_RECORDED}/cross_model/code_{m}{s}.json"
                     for m in ("qwen3-235b", "gpt-5") for s in ("", "_seed2", "_seed3")),
               f"{_IS_CODE}:table7"),
    PaperTable("is-table8", INTERACTION_SCALING,
               "Table 8: held-out generalization on the 32 v2 code tasks",
               (f"{_RECORDED}/heldout_phase1/code_heldout_harness.json",),
               f"{_IS_CODE}:table8"),
)


def find_table(table_id: str) -> PaperTable:
    """The table called `table_id`; ConfigError naming the known ones otherwise."""
    for table in TABLES:
        if table.id == table_id:
            return table
    ids = [t.id for t in TABLES]
    raise ConfigError(f"no reproducible table {table_id!r}",
                      hint=f"{did_you_mean(table_id, ids)}`tether reproduce list` names "
                           f"them: {', '.join(ids)}")
