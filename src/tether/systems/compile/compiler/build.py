"""`compile_harness(config)`: the builds of a compile, their freeze, then the test split.

    result = Compiler(config).run()          # also recorded as OUT's `result` event
    result = Compiler.resume("OUT").run()    # after a kill: continues from what OUT holds

OUT is a run directory (compiler/run.py): every student scoring is a trial of it, every
teacher call, round and selection an event.

Order (the test split is touched once, after every selection is frozen):
1. each build runs its loop (loop.py) and records its selection, then makes the
   one-shot teacher harness (the paper's Table 22: one call under the manual with the
   guidance removed; no probe score, no examples, no restarts, no gate);
2. each build's selection is audited against test gold (answer_audit, flagged in
   its test record and the result, never used to choose), and bare and the selection
   are scored on the same test items, with the comparators the config names (all by
   default): H0, the one-shot harness, the setting's human recipe (where one is
   bundled), and the two baselines with no harness, student_routed and cot_vote
   (systems/compile/baselines.py), and GEPA's best harness when `gepa` is named
   (systems/compile/compiler/gepa_arm.py: its search runs in step 1, after the build's freeze,
   on probe and validation only, under the build's teacher budget).
A test item is never scored before its build's selection is recorded (checked before
every test item, baselines included). Scores of the same harness (or baseline) are
shared by the builds of a directory.

The result (`tether compile --json`): one build's
`{"selected_hash", "bare": {"validation", "test"}, "selected": {...}, "h0": {...},
"oneshot": {...}, "human_recipe": {...}, "student_routed": {"test"}, "cot_vote":
{"test"}, "gepa": {"validation", "test", "teacher_tokens", "stopped", ...},
"rounds": [...], "teacher_tokens", ...}` (an arm not scored has null scores);
with `builds > 1` the same fields hold means over the builds (hashes become lists) and
`builds` holds each build's own (its `protocol`, and `shared_h0`). Protocol "AB" runs an A
and a B build per replicate from one H0 (compiler/plan.py); its result is always of the
several-builds shape, and `by_protocol` holds each protocol's means apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tether.core import BudgetSpec, Ledger, Task
from tether.errors import ConfigError, TetherError
from tether.models import (
    Model,
    Usage,
    accepts_images,
    json_object,
    parse_model,
)
from tether.runs import DB_NAME
from tether.systems.compile.admissibility import check_harness
from tether.systems.compile.answer_audit import audit_answers
from tether.systems.compile.baselines import BASELINES, CotVote, StudentRouted
from tether.systems.compile.compiler.build_records import BuildRecords
from tether.systems.compile.compiler.config import CompileConfig, stored_config
from tether.systems.compile.compiler.endpoint import StudentEndpoint
from tether.systems.compile.compiler.gepa_arm import matched_budget, require_gepa, run_gepa
from tether.systems.compile.compiler.loop import BuildEnv, BuildLoop
from tether.systems.compile.compiler.plan import build_plan
from tether.systems.compile.compiler.pool import draw_ahead
from tether.systems.compile.compiler.prompts import oneshot_prompt
from tether.systems.compile.compiler.run import CompileRun
from tether.systems.compile.compiler.scoring import Progress, ScoringEnv, SplitScore, SplitScorer
from tether.systems.compile.compiler.summary import summarise
from tether.systems.compile.compiler.teacher import TeacherClient
from tether.systems.compile.constant_answer import applies, constant_answer, constant_row
from tether.systems.compile.harness import Harness, bare_harness
from tether.systems.compile.interventions import INTERVENTIONS, NotApplicable
from tether.systems.compile.recipes import recipe, recipe_settings
from tether.systems.compile.setting import (
    SPLITS,
    Item,
    Setting,
    check_splits,
    fitted_sizes,
    get_setting,
    item_count,
)
from tether.systems.compile.student import STUDENT_ROLE, shown_images
from tether.systems.compile.tasks import item_tasks, task_suite

__all__ = ["Compiler", "FreezeError"]



class FreezeError(TetherError):
    """A test item was about to be scored before the build's selection was frozen."""


def _modality(model: Model, requested: str) -> str:
    if requested != "auto":
        return requested
    return "image" if accepts_images(model) else "text"


def _fit_sizes(config: CompileConfig, setting: Any) -> CompileConfig:
    """The config with the split sizes it left to the defaults fitted to a setting
    smaller than them (fitted_sizes): a 12-row file compiles as 3 / 3 / 6 without flags.
    Sizes the user gave stay; too large, check_splits refuses them."""
    given = {s: getattr(config, s) for s in SPLITS if s in config.model_fields_set}
    sizes = fitted_sizes(item_count(setting), given)
    return config if sizes == config.sizes else config.model_copy(update=sizes)


class Compiler:
    """One `tether compile` (see the module docstring)."""

    def __init__(self, config: CompileConfig, *, out: str | Path | None = None,
                 teacher: Model | None = None, student: Model | None = None,
                 progress: Progress | None = None,
                 before_item: Callable[[str, str, Item], None] | None = None,
                 resume: bool = False, run: CompileRun | None = None) -> None:
        target = out or config.out
        if target is None:
            raise ConfigError("no output directory", hint="pass --out DIR (or out = in the file)")
        if "gepa" in config.comparators:
            require_gepa()  # before anything is written or scored
        self.setting = get_setting(config.setting)
        if not resume:  # a resumed compile keeps the sizes it recorded
            config = _fit_sizes(config, self.setting)
        self.config = config
        self.splits = self.setting.splits(config.seed, config.sizes)
        check_splits(self.setting, self.splits, config.sizes)
        # the pages a remote student will be shown start drawing now, in the helper
        # process, while the models load (most of a compile's start)
        if shown_images(student, config.student, config.modality):
            draw_ahead(self.setting, self.splits)
        # the model specs before the directory: a bad spec leaves no run behind that
        # refuses the corrected command ("already holds a compile")
        teacher = teacher or parse_model(config.teacher)
        student = student or parse_model(config.student)
        # one process per directory: the run store's lock, held until run() ends
        self.store = run if run is not None else CompileRun.create(
            target, config.model_dump(), compile_tasks(self.setting, self.splits, config))
        try:
            self._open(teacher, student, progress, before_item)
        except BaseException:
            self.store.close()
            raise

    def _open(self, teacher: Model | None, student: Model | None, progress: Progress | None,
              before_item: Callable[[str, str, Item], None] | None) -> None:
        config = self.config
        self.teacher_model = teacher or parse_model(config.teacher)
        student_model = student or parse_model(config.student)
        self.endpoint = StudentEndpoint(student_model, ledger=student_ledger(self.store, config),
                                        record=self.store.append_student_call,
                                        resume=f"tether compile --resume {self.store.root}")
        self._testing: BuildRecords | None = None
        self._before_item = before_item
        self.scorer = SplitScorer(self.setting, self.endpoint, self.store,
                                  modality=_modality(student_model, config.modality),
                                  before_item=self._guard, progress=progress)

    @classmethod
    def resume(cls, out: str | Path, **kwargs: Any) -> Compiler:
        run = CompileRun.reopen(out)
        try:
            stored = run.config()
            assert stored is not None  # reopen found the compile event
            config = stored_config(stored, f"{Path(out) / DB_NAME}: the compile's config")
            return cls(config, out=out, resume=True, run=run, **kwargs)
        except BaseException:
            run.close()
            raise

    def _guard(self, split: str, harness_hash: str, item: Item) -> None:
        if split == "test" and (self._testing is None or self._testing.selected() is None):
            raise FreezeError(f"test item {item.item_id} before the selection was frozen")
        if self._before_item is not None:
            self._before_item(split, harness_hash, item)

    def run(self) -> dict[str, Any]:
        try:
            return self._run()
        finally:
            self.store.close()

    def _run(self) -> dict[str, Any]:
        cfg = self.config
        env = BuildEnv(self.setting, self.splits, self.scorer, cfg.seed, cfg.sizes,
                       cfg.rounds, cfg.protocol, cfg.restarts, cfg.trace_requests,
                       cfg.restart_rejected_h0)
        plan = build_plan(cfg.builds, cfg.protocol)
        for b in plan:
            k = b.index
            self.store.start_build(k)
            store = self.store.build(k)
            # with protocol AB, a B build reads its round 0 (H0) from its A build
            teacher = TeacherClient(self.teacher_model, store, seed=cfg.seed + b.replicate,
                                    temperature=cfg.teacher_temperature,
                                    max_tokens=cfg.teacher_max_tokens,
                                    token_budget=cfg.teacher_token_budget,
                                    round0_from=None if b.h0_from is None
                                    else self.store.build(int(b.h0_from)))
            if store.selected() is None:
                BuildLoop(replace(env, protocol=b.protocol), store, teacher,
                          shared_h0=b.shared_h0).run()
            if "oneshot" in cfg.comparators and store.oneshot() is None:
                store.write_oneshot(self._oneshot(teacher))
            if "gepa" in cfg.comparators and store.gepa() is None:
                store.write_gepa(self._gepa(env, store, k))
        for b in plan:
            self._test(self.store.build(b.index))
        result = summarise(self.store)
        self.store.write_result(result)
        return result

    def _oneshot(self, teacher: TeacherClient) -> dict[str, Any]:
        reply = teacher.call("oneshot", oneshot_prompt(self.setting))
        row: dict[str, Any] = {"hash": None, "document": None, "admissible": False,
                               "violations": [], "error": reply.error}
        document = json_object(reply.text) if reply.text else None
        if document is None:
            row["error"] = row["error"] or "no harness JSON object in the teacher's reply"
            return row
        report = check_harness(document, self.setting, seed=self.config.seed,
                               sizes=self.config.sizes)
        row.update(hash=report.hash, admissible=report.admissible,
                   violations=[{"check": v.check, "detail": v.detail}
                               for v in report.violations])
        if report.hash is not None:
            row["document"] = Harness.model_validate(document).document()
        return row

    def _gepa(self, env: ScoringEnv, store: BuildRecords, k: int) -> dict[str, Any]:
        """GEPA's search for this build on the build's own scoring, matched to the build's
        spend (gepa_arm.py)."""
        cfg = self.config
        match = matched_budget(cfg.teacher_token_budget, store, cfg.sizes)
        if cfg.gepa_metric_calls is not None:  # the paper's budget, or any other
            match = replace(match, metric_calls=cfg.gepa_metric_calls,
                            metric_calls_source="set")
        arm_store = store.gepa_store()
        teacher = TeacherClient(self.teacher_model, arm_store, seed=cfg.seed + k,
                                temperature=cfg.teacher_temperature,
                                max_tokens=cfg.teacher_max_tokens,
                                token_budget=match.teacher_tokens)
        return run_gepa(env, arm_store, teacher, match, seed=cfg.seed + k,
                        variant=cfg.gepa_variant)

    def _comparators(self) -> set[str]:
        """The comparators the config asks for that this setting has (the human recipe
        exists for some settings only)."""
        wanted: set[str] = set(self.config.comparators)
        if self.setting.name not in recipe_settings():
            wanted.discard("human_recipe")
        return wanted

    def _test(self, store: BuildRecords) -> None:
        wanted = self._comparators()
        stored = store.test()
        # A finished build's test record is final unless the config was widened before a
        # resume: then the missing arms are scored, the others come from their trials.
        if stored is not None and wanted <= set(stored["arms"]):
            return
        selected = store.selected()
        if selected is None:
            raise FreezeError(f"{store.name}: no selection recorded; the build did not "
                              "finish")
        self._testing = store
        test_items = self.splits["test"]
        chosen = Harness.model_validate(selected["document"])
        audit = [] if selected["is_bare"] else audit_answers(chosen, self.setting, test_items)
        arms: dict[str, Harness | None] = {"bare": bare_harness(self.setting.name),
                                           "selected": chosen}
        if "h0" in wanted:
            arms["h0"] = Harness.model_validate(selected["h0"]["document"]) \
                if selected.get("h0") else None
        if "oneshot" in wanted:
            oneshot = store.oneshot() or {}
            arms["oneshot"] = Harness.model_validate(oneshot["document"]) \
                if oneshot.get("admissible") else None
        if "human_recipe" in wanted:
            arms["human_recipe"] = recipe(self.setting.name)
        gepa_audit: list[str] = []
        if "gepa" in wanted:
            found = store.gepa() or {}
            gepa = Harness.model_validate(found["document"]) if found.get("admissible") \
                else None
            arms["gepa"] = gepa
            if gepa is not None and not found.get("is_seed"):
                gepa_audit = audit_answers(gepa, self.setting, test_items)
        scores: dict[str, Any] = {}
        stops: list[str] = []  # why the student's budget left test items unscored

        def arm(result: SplitScore, harness_hash: str | None = None) -> dict[str, Any]:
            stops.extend([result.stopped] if result.stopped else [])
            return _arm(result, harness_hash)

        # every arm's test items in one pool (compiler/pool.py), all after the freeze
        scored: dict[str, Harness | CotVote | StudentRouted] = {
            name: harness for name, harness in arms.items() if harness is not None}
        scored.update((name, baseline()) for name, baseline in BASELINES.items()
                      if name in wanted)
        results = dict(zip(scored, self.scorer.score_all(
            [self.scorer.job(what, "test", test_items) for what in scored.values()]),
            strict=True))
        for name, harness in arms.items():
            # None: no admissible harness to score
            scores[name] = None if harness is None else arm(results[name], harness.hash)
        for name in BASELINES:
            if name in results:
                scores[name] = arm(results[name])
        changes: dict[str, Any] = {}
        if self.config.interventions:
            for name in INTERVENTIONS:
                try:
                    changed = self.scorer.score(chosen, "test", test_items, name)
                except NotApplicable as exc:
                    changes[name] = {"na": str(exc)}
                    continue
                row = arm(changed)
                changes[name] = {"key": changed.hash, "mean": row["mean"],
                                 "n": len(changed.scores), "na_items": changed.na,
                                 "tokens_per_item": changed.tokens_per_item}
        constant = _constant_of(self.setting, self.splits, test_items)
        store.write_test({"arms": scores, "constant": constant,
                          "audit": audit, "flagged": bool(audit),
                          "gepa_audit": gepa_audit,
                          "interventions": changes, "items": [i.item_id for i in test_items],
                          "student_stopped": stops[0] if stops else None})
        self._testing = None


def _constant_of(setting: Setting, splits: dict[str, list[Item]],
                 test_items: list[Item]) -> dict[str, Any] | None:
    """The constant-answer row (constant_answer.py); None on a graded setting."""
    if not applies(setting):
        return None
    answer = constant_answer(setting, [*splits["probe"], *splits["validation"]])
    return None if answer is None else constant_row(setting, answer, test_items)


def compile_tasks(setting: Setting, splits: dict[str, list[Item]],
                  config: CompileConfig) -> list[Task]:
    """The tasks of the compile's items, split by split (what its trials are of): the
    tasks a `tether run` on the setting's `harness-` suites with these sizes has."""
    tasks: list[Task] = []
    for split in SPLITS:
        suite = task_suite(setting.name, split, seed=config.seed, sizes=config.sizes,
                           count=item_count(setting))
        tasks += item_tasks(setting.name, split, splits.get(split, []), suite=suite,
                            seed=config.seed, sizes=config.sizes)
    return tasks


def student_ledger(run: CompileRun, config: CompileConfig) -> Ledger:
    """The compile's student budget, charged with what the run says was spent (a
    resumed compile goes on from there), in generated tokens as tokens/item counts them."""
    ledger = Ledger(BudgetSpec(total=config.student_token_budget))
    for row in run.student_calls():
        ledger.settle(STUDENT_ROLE, 0, Usage(**row["usage"]))
    return ledger


def _arm(result: SplitScore, harness_hash: str | None = None) -> dict[str, Any]:
    """An arm's row in the test record: `key` names its scores (a harness hash, or a
    baseline's key), `hash` the harness (None for a baseline)."""
    row = {"hash": harness_hash, "key": result.hash,
           # an arm the student's budget stopped before its last item has no mean: a mean
           # over the items that fitted would compare arms on different items
           "mean": None if result.stopped else result.known_mean,
           "n": len(result.scores), "tokens_per_item": result.tokens_per_item,
           "infra_errors": result.infra_errors}
    if result.budget:
        row["budget_stopped"] = len(result.budget)
    return row
