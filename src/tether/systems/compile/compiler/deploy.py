"""A compiled harness deployed on new data: `tether harness apply`.

    deployment = Deployment.start("build/", "jsonl:new.jsonl", "openai:...", "out/")
    deployment = Deployment.resume("out/")          # after a kill: the rows left
    result = deployment.run()                       # Deployed; also out/predictions.jsonl

What is deployed, and on which rows, is deploy_inputs.py's: a harness file or a
compile's selected harness; any data file whose every row has the fields the harness
uses, labelled or not.

Admissibility (admissibility.py) is checked on the data before the run directory is
made: the schema and hook checks always, the checks that need gold answers (hard-coded
answers, smoke, determinism) on the labelled rows only, and not at all when no row is
labelled. Which checks ran, and which did not and why, is the run's `admissibility`
event and part of the result. An inadmissible harness is not run.

The run directory is a compile's store (compiler/run.py) under the command `harness
apply`: the harness document is an artifact (its digest is its hash), every row one
trial of the `test` split of the data's setting, scored by the compile's one
student-scoring path (`SplitScorer`, compiler/scoring.py) through the same sandboxed
runtime and committed as it finishes, under the same directory lock, so `--resume`
scores only the rows that have no trial yet. A labelled row's trial carries its score;
an unlabelled row's keeps the answer, unscored (never a 0).

`OUT/predictions.jsonl` holds `{"id", "answer"}` per row in the file's order, written
from the store when the run ends (again after a resume); `answer` is null where the
harness gave none (a hook error, or an error of the student's endpoint or the sandbox).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tether.core import Task
from tether.errors import ConfigError
from tether.models import Model, accepts_images, parse_model
from tether.systems.compile.admissibility import CHECKS, GOLD_CHECKS, check_harness
from tether.systems.compile.compiler.deploy_inputs import (
    data_spec_of,
    deploy_setting,
    deployed_harness,
)
from tether.systems.compile.compiler.endpoint import StudentEndpoint
from tether.systems.compile.compiler.run import CompileRun
from tether.systems.compile.compiler.scoring import Progress, SplitScorer
from tether.systems.compile.compiler.trial import Scoring
from tether.systems.compile.harness import Harness, bare_harness, canonical_json
from tether.systems.compile.settings.data import DataSetting
from tether.systems.compile.tasks import item_tasks, task_suite

__all__ = ["PREDICTIONS", "Deployed", "Deployment", "DeployRun"]

#: the file of the answers, in the run directory
PREDICTIONS = "predictions.jsonl"
#: the split every row is an item of (a suite `harness-SETTING` names the same tasks)
SPLIT = "test"
SEED = 0


class DeployRun(CompileRun):
    """A deployment's run directory: a compile's store under its own command."""

    command = "harness apply"
    head = "apply"


@dataclass
class Deployed:
    """What a deployment did (`tether harness apply --json` prints it)."""

    run_dir: str
    predictions: str
    harness: str
    harness_source: str
    data: str
    rows: int
    labelled: int
    answered: int
    hook_errors: int
    errors: int
    #: labelled rows scored, and their mean (None when none was: never a 0)
    scored: int
    mean: float | None
    checks: list[str] = field(default_factory=list)
    checks_not_run: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Deployment:
    """One `tether harness apply` (see the module docstring)."""

    def __init__(self, run: DeployRun, harness: Harness, setting: DataSetting,
                 student: Model | None = None, progress: Progress | None = None) -> None:
        self.run_store = run
        self.harness = harness
        self.setting = setting
        config = run.config() or {}
        model = student or parse_model(str(config["student"]))
        self.endpoint = StudentEndpoint(model, seed=SEED, record=run.append_student_call,
                                        resume=f"tether harness apply --resume {run.root}")
        modality = "image" if accepts_images(model) else "text"
        self.scorer = SplitScorer(setting, self.endpoint, run, modality=modality,
                                  progress=progress)

    @classmethod
    def start(cls, harness_path: str | Path, data: str, student: str, out: str | Path, *,
              model: Model | None = None, progress: Progress | None = None
              ) -> tuple[Deployment | None, dict[str, Any]]:
        """Check the harness on the data; when admissible, a new run directory `out` for
        it (None otherwise). Returns it with the admissibility row."""
        harness, source = deployed_harness(harness_path)
        setting = deploy_setting(data_spec_of(data, harness), harness)
        admission = admissibility(harness, setting)
        if not admission["admissible"]:
            return None, admission
        config = {"command": DeployRun.command, "harness": harness.hash,
                  "harness_source": source, "harness_document": harness.document(),
                  "data": setting.name, "setting": setting.name, "student": student,
                  "seed": SEED}
        run = DeployRun.create(out, config, deploy_tasks(setting))
        try:
            run.store.put_blob(canonical_json(harness.document()).encode("utf-8"),
                               kind="harness", media_type="application/json")
            run.record("admissibility", "", admission)
            return cls(run, harness, setting, model, progress), admission
        except BaseException:
            run.close()
            raise

    @classmethod
    def resume(cls, out: str | Path, *, model: Model | None = None,
               progress: Progress | None = None) -> Deployment:
        """The deployment in `out`, to score the rows it has not (the same harness, the
        same rows: a data file changed since is refused)."""
        run = DeployRun.reopen(out)
        try:
            config = run.config() or {}
            harness = Harness.model_validate(config["harness_document"])
            if harness.hash != config["harness"]:
                raise ConfigError(f"{out}: the recorded harness hashes to "
                                  f"{harness.hash[:12]}, not {str(config['harness'])[:12]}",
                                  hint="the run directory was edited: apply again")
            setting = deploy_setting(str(config["data"]), harness)
            ids = [item.item_id for item in setting.items]
            if ids != run.split_order(SPLIT):
                raise ConfigError(f"{setting.path} changed since {out} began: its rows' "
                                  "ids are not the ones recorded",
                                  hint="apply it again with another --out")
            return cls(run, harness, setting, model, progress)
        except BaseException:
            run.close()
            raise

    def close(self) -> None:
        self.run_store.close()

    def run(self) -> Deployed:
        """Score every row not yet scored, then write the predictions."""
        try:
            items = self.setting.items
            self.scorer.score(self.harness, SPLIT, items)
            scoring = Scoring.of_harness(self.harness, SPLIT,
                                         bare_hash=bare_harness(self.setting.name).hash)
            rows = self.run_store.scored(scoring)
            ordered = [rows.get(item.item_id) for item in items]
            path = write_predictions(self.run_store.root,
                                     [(item.item_id, row) for item, row in zip(
                                         items, ordered, strict=True)])
            return self._result(ordered, path)
        finally:
            self.close()

    def _result(self, rows: list[dict[str, Any] | None], path: Path) -> Deployed:
        config = self.run_store.config() or {}
        admission = self.run_store.event("admissibility", "") or {}
        statuses = [None if r is None else r["outcome"].get("status") for r in rows]
        scores = [float(r["score"]) for r in rows
                  if r is not None and not r.get("unlabelled") and r["score"] is not None]
        return Deployed(
            run_dir=str(self.run_store.root), predictions=str(path),
            harness=self.harness.hash, harness_source=str(config.get("harness_source")),
            data=self.setting.name, rows=len(rows),
            labelled=sum(self.setting.labelled(i) for i in self.setting.items),
            answered=sum(r is not None and r["outcome"].get("answer") is not None
                         for r in rows),
            hook_errors=statuses.count("hook_error"),
            errors=sum(s in (None, "infra_error") for s in statuses),
            scored=len(scores), mean=sum(scores) / len(scores) if scores else None,
            checks=list(admission.get("checks", [])),
            # in the order the checks run (the event's row comes back with sorted keys)
            checks_not_run={c: str(admission["checks_not_run"][c]) for c in CHECKS
                            if c in admission.get("checks_not_run", {})})


def deploy_tasks(setting: DataSetting) -> list[Task]:
    """One task per row, in the file's order: the `test` split of the data's setting
    with every row in it (so `harness-SETTING`'s tasks with these sizes are the same)."""
    sizes = {"probe": 0, "validation": 0, SPLIT: len(setting.items)}
    suite = task_suite(setting.name, SPLIT, seed=SEED, sizes=sizes, count=len(setting))
    return item_tasks(setting.name, SPLIT, setting.items, suite=suite, seed=SEED,
                      sizes=sizes)


def admissibility(harness: Harness, setting: DataSetting) -> dict[str, Any]:
    """The harness checked on the data (see the module docstring): the report's row,
    with the checks that did not run and why."""
    labelled = [item for item in setting.items if setting.labelled(item)]
    gold = bool(labelled)
    # every labelled row a probe row: the audit sees all their gold, smoke the first 10
    report = check_harness(harness.document(), setting.restricted(labelled) if gold
                           else setting, seed=SEED,
                           sizes={"probe": len(labelled), "validation": 0, SPLIT: 0},
                           named_setting=False, gold=gold)
    not_run = {check: "an earlier check failed" if gold or check not in GOLD_CHECKS
               else "no row is labelled (these need gold answers)"
               for check in CHECKS if check not in report.checks}
    return {**report.to_json(), "labelled_rows": len(labelled), "checks_not_run": not_run}


def write_predictions(root: Path, rows: list[tuple[str, dict[str, Any] | None]]) -> Path:
    """`root/predictions.jsonl` (see the module docstring), replaced whole."""
    path = root / PREDICTIONS
    tmp = path.with_suffix(".jsonl.tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for item_id, row in rows:
            answer = None if row is None else row["outcome"].get("answer")
            f.write(json.dumps({"id": item_id, "answer": answer}, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
    return path
