"""`compile_harness(config)`: the builds of a compile, their freeze, then the test split.

    result = Compiler(config).run()          # also written to OUT/result.json
    result = Compiler.resume("OUT").run()    # after a kill: continues from the files

Order (the test split is touched once, after every selection is frozen):
1. each build runs its loop (loop.py) and freezes `selected.json`, then makes the
   one-shot teacher harness (the paper's Table 22: one call under the manual with the
   guidance removed; no probe score, no examples, no restarts, no gate);
2. each build's selection is audited against test gold (answer_audit, flagged in
   test.json and the result, never used to choose), and bare and the selection are
   scored on the same test items, with the comparators the config names (all by
   default): H0, the one-shot harness, the setting's human recipe (where one is
   bundled), and the two baselines with no harness, student_routed and cot_vote
   (compile/baselines.py), and GEPA's best harness when `gepa` is named
   (compile/compiler/gepa_arm.py: its search runs in step 1, after the build's freeze,
   on probe and validation only, under the build's teacher budget).
A test item is never scored before its build's selected.json exists (checked before
every test item, baselines included). Scores of the same harness (or baseline) are
shared by the builds of a directory.

The result (`tether compile --json`): one build's
`{"selected_hash", "bare": {"validation", "test"}, "selected": {...}, "h0": {...},
"oneshot": {...}, "human_recipe": {...}, "student_routed": {"test"}, "cot_vote":
{"test"}, "gepa": {"validation", "test", "teacher_tokens", "stopped", ...},
"rounds": [...], "teacher_tokens", ...}` (an arm not scored has null scores);
with `builds > 1` the same fields hold means over the builds (hashes become lists) and
`builds` holds each build's own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tether.compile.admissibility import check_harness
from tether.compile.answer_audit import audit_answers
from tether.compile.baselines import BASELINES
from tether.compile.compiler.config import CompileConfig, stored_config
from tether.compile.compiler.gepa_arm import GepaEnv, matched_budget, require_gepa, run_gepa
from tether.compile.compiler.loop import BuildEnv, BuildLoop
from tether.compile.compiler.prompts import oneshot_prompt
from tether.compile.compiler.scoring import Progress, SplitScore, SplitScorer
from tether.compile.compiler.store import BuildDir, BuildStore
from tether.compile.compiler.student import ModelStudent
from tether.compile.compiler.teacher import TeacherClient
from tether.compile.harness import Harness, bare_harness
from tether.compile.interventions import INTERVENTIONS, NotApplicable
from tether.compile.recipes import recipe, recipe_settings
from tether.compile.setting import (
    SPLITS,
    Item,
    check_splits,
    fitted_sizes,
    get_setting,
    item_count,
)
from tether.compile.student import STUDENT_ROLE
from tether.core.budget import BudgetSpec, Ledger
from tether.errors import ConfigError, TetherError
from tether.models import parse_model
from tether.models.base import Model, Usage, accepts_images
from tether.models.replies import json_object

__all__ = ["ARMS", "Compiler", "FreezeError", "teacher_failure"]

#: the test arms in report order (compile/compiler/config.py: COMPARATORS)
ARMS = ("bare", "h0", "selected", "oneshot", "human_recipe", "student_routed", "cot_vote",
        "gepa")
ROUND_FIELDS = ("round", "restart", "hash", "admissible", "violations", "probe",
                "validation", "infra_errors", "decision", "error")


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
                 resume: bool = False) -> None:
        target = out or config.out
        if target is None:
            raise ConfigError("no output directory", hint="pass --out DIR (or out = in the file)")
        if "gepa" in config.comparators:
            require_gepa()  # before anything is written or scored
        self.dir = BuildDir(target)
        # one process per directory: a second compile or resume refuses to start
        self._locked = self.dir.lock()
        try:
            self._open(config, target, teacher, student, progress, before_item, resume)
        except BaseException:
            self._release()
            raise

    def _release(self) -> None:
        if self._locked:
            self.dir.unlock()
            self._locked = False

    def _open(self, config: CompileConfig, target: str | Path, teacher: Model | None,
              student: Model | None, progress: Progress | None,
              before_item: Callable[[str, str, Item], None] | None, resume: bool) -> None:
        stored = self.dir.config()
        if stored is not None and not resume:
            raise ConfigError(f"{target} already holds a compile",
                              hint=f"tether compile --resume {target}, or another --out")
        if resume and stored is None:
            raise ConfigError(f"{target} holds no compile to resume (no config.json)")
        self.setting = get_setting(config.setting)
        if not resume:  # a resumed build keeps the sizes its config.json recorded
            config = _fit_sizes(config, self.setting)
        self.config = config
        self.teacher_model = teacher or parse_model(config.teacher)
        student_model = student or parse_model(config.student)
        self.student = ModelStudent(student_model, ledger=student_ledger(self.dir, config),
                                    sink=self.dir.append_student_call)
        self.splits = self.setting.splits(config.seed, config.sizes)
        check_splits(self.setting, self.splits, config.sizes)
        self._testing: BuildStore | None = None
        self._before_item = before_item
        self.scorer = SplitScorer(self.setting, self.student, self.dir,
                                  modality=_modality(student_model, config.modality),
                                  before_item=self._guard, progress=progress)
        if not resume:
            self.dir.write_config(config.model_dump())
            self.dir.start_student_calls()  # a student refused every call spent 0, not null

    @classmethod
    def resume(cls, out: str | Path, **kwargs: Any) -> Compiler:
        stored = BuildDir(out).config()
        if stored is None:
            raise ConfigError(f"{out} holds no compile to resume (no config.json)")
        config = stored_config(stored, str(Path(out) / "config.json"))
        return cls(config, out=out, resume=True, **kwargs)

    def _guard(self, split: str, harness_hash: str, item: Item) -> None:
        if split == "test" and (self._testing is None or self._testing.selected() is None):
            raise FreezeError(f"test item {item.item_id} before the selection was frozen")
        if self._before_item is not None:
            self._before_item(split, harness_hash, item)

    def run(self) -> dict[str, Any]:
        try:
            return self._run()
        finally:
            self._release()

    def _run(self) -> dict[str, Any]:
        cfg = self.config
        env = BuildEnv(self.setting, self.splits, self.scorer, cfg.seed, cfg.sizes,
                       cfg.rounds, cfg.protocol, cfg.restarts, cfg.trace_requests)
        for k in range(cfg.builds):
            store = self.dir.build(k)
            teacher = TeacherClient(self.teacher_model, store, seed=cfg.seed + k,
                                    temperature=cfg.teacher_temperature,
                                    max_tokens=cfg.teacher_max_tokens,
                                    token_budget=cfg.teacher_token_budget)
            if store.selected() is None:
                BuildLoop(env, store, teacher).run()
            if "oneshot" in cfg.comparators and store.oneshot() is None:
                store.write_oneshot(self._oneshot(teacher))
            if "gepa" in cfg.comparators and store.gepa() is None:
                store.write_gepa(self._gepa(store, k))
        for k in range(cfg.builds):
            self._test(self.dir.build(k))
        result = summarise(self.dir)
        self.dir.write_result(result)
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

    def _gepa(self, store: BuildStore, k: int) -> dict[str, Any]:
        """GEPA's search for this build, matched to the build's spend (gepa_arm.py)."""
        cfg = self.config
        match = matched_budget(cfg.teacher_token_budget, store, cfg.sizes)
        arm_store = store.gepa_store()
        teacher = TeacherClient(self.teacher_model, arm_store, seed=cfg.seed + k,
                                temperature=cfg.teacher_temperature,
                                max_tokens=cfg.teacher_max_tokens,
                                token_budget=match.teacher_tokens)
        env = GepaEnv(self.setting, self.splits, self.scorer, cfg.seed, cfg.sizes)
        return run_gepa(env, arm_store, teacher, match, seed=cfg.seed + k)

    def _comparators(self) -> set[str]:
        """The comparators the config asks for that this setting has (the human recipe
        exists for some settings only)."""
        wanted: set[str] = set(self.config.comparators)
        if self.setting.name not in recipe_settings():
            wanted.discard("human_recipe")
        return wanted

    def _test(self, store: BuildStore) -> None:
        wanted = self._comparators()
        stored = store.test()
        # A finished build's test.json is final unless the config was widened before a
        # resume: then the missing arms are scored, the others come from the score cache.
        if stored is not None and wanted <= set(stored["arms"]):
            return
        selected = store.selected()
        if selected is None:
            raise FreezeError(f"{store.root}: no selected.json; the build did not finish")
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

        for name, harness in arms.items():
            if harness is None:
                scores[name] = None  # no admissible harness to score
                continue
            scores[name] = arm(self.scorer.score(harness, "test", test_items), harness.hash)
        for name, baseline in BASELINES.items():
            if name in wanted:
                scores[name] = arm(self.scorer.score_baseline(baseline(), "test", test_items))
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
        store.write_test({"arms": scores, "audit": audit, "flagged": bool(audit),
                          "gepa_audit": gepa_audit,
                          "interventions": changes, "items": [i.item_id for i in test_items],
                          "student_stopped": stops[0] if stops else None})
        self._testing = None


def student_ledger(dir_: BuildDir, config: CompileConfig) -> Ledger:
    """The compile's student budget, charged with what the directory says was spent (a
    resumed compile goes on from there), in generated tokens as tokens/item counts them."""
    ledger = Ledger(BudgetSpec(total=config.student_token_budget))
    for row in dir_.student_calls():
        ledger.settle(STUDENT_ROLE, 0, Usage(**row["usage"]))
    return ledger


def student_spend(dir_: BuildDir) -> int | None:
    """Generated tokens of every student call the directory recorded (None: it was
    written before they were recorded)."""
    if not dir_.records_student_calls():
        return None
    return sum(int(r["usage"]["output_tokens"]) + int(r["usage"]["reasoning_tokens"])
               for r in dir_.student_calls())


def _arm(result: SplitScore, harness_hash: str | None = None) -> dict[str, Any]:
    """An arm's row in test.json: `key` names its scores (a harness hash, or a
    baseline's key), `hash` the harness (None for a baseline)."""
    row = {"hash": harness_hash, "key": result.hash,
           # an arm the student's budget stopped before its last item has no mean: a mean
           # over the items that fitted would compare arms on different items
           "mean": None if result.stopped else result.mean,
           "n": len(result.scores), "tokens_per_item": result.tokens_per_item,
           "infra_errors": result.infra_errors}
    if result.budget:
        row["budget_stopped"] = len(result.budget)
    return row


def build_summary(dir_: BuildDir, store: BuildStore) -> dict[str, Any]:
    """One build's result (the `--json` shape)."""
    selected = store.selected() or {}
    test = (store.test() or {}).get("arms", {})
    rounds = store.rounds()
    bare_val = dir_.split_score("validation", bare_harness(_setting_of(selected)).hash) \
        if selected else None
    h0 = selected.get("h0") or {}
    oneshot = store.oneshot() or {}
    gepa = store.gepa() or {}

    def test_of(arm: str) -> float | None:
        row = test.get(arm)
        return row["mean"] if row else None

    def tokens_of(arm: str) -> float | None:
        row = test.get(arm)
        return row["tokens_per_item"] if row else None

    def infra_of(arm: str, validation_hash: str | None = None) -> dict[str, int | None]:
        """Items never scored (sandbox or endpoint failures), per split."""
        row = test.get(arm)
        val = dir_.split_score("validation", validation_hash) if validation_hash else None
        return {"validation": val.infra_errors if val else None,
                "test": int(row.get("infra_errors", 0)) if row else None}

    # a call the budget refused was never made: counted apart, never as a call
    calls = [c for c in store.teacher_calls() if not c.get("refused")]
    refusals = len(store.teacher_calls()) - len(calls)
    return {
        "selected_hash": selected.get("hash"),
        "selected_is_bare": selected.get("is_bare"),
        "stopped": selected.get("stopped"),
        # why the student's budget left items unscored: in the rounds, else on test
        "student_stopped": selected.get("student_stopped")
        or (store.test() or {}).get("student_stopped"),
        "bare": {"validation": bare_val.mean if bare_val else None, "test": test_of("bare"),
                 "tokens_per_item": tokens_of("bare"),
                 "infra_errors": infra_of("bare", bare_val.hash if bare_val else None)},
        "selected": {"validation": selected.get("validation"), "test": test_of("selected"),
                     "tokens_per_item": tokens_of("selected"),
                     "infra_errors": infra_of("selected", selected.get("hash"))},
        "h0": {"hash": h0.get("hash"), "validation": h0.get("validation"),
               "test": test_of("h0"), "tokens_per_item": tokens_of("h0"),
               "infra_errors": infra_of("h0", h0.get("hash"))},
        "oneshot": {"hash": oneshot.get("hash"), "admissible": oneshot.get("admissible"),
                    "test": test_of("oneshot"), "tokens_per_item": tokens_of("oneshot"),
                    "infra_errors": infra_of("oneshot")},
        **{arm: {"test": test_of(arm), "tokens_per_item": tokens_of(arm),
                 "infra_errors": infra_of(arm)}
           for arm in ("human_recipe", "student_routed", "cot_vote")},
        "gepa": {"hash": gepa.get("hash"), "admissible": gepa.get("admissible"),
                 "validation": gepa.get("validation"), "test": test_of("gepa"),
                 "tokens_per_item": tokens_of("gepa"), "infra_errors": infra_of("gepa"),
                 "teacher_tokens": gepa.get("teacher_tokens"),
                 "teacher_budget": (gepa.get("budget") or {}).get("teacher_tokens"),
                 "metric_calls": gepa.get("metric_calls"), "stopped": gepa.get("stopped"),
                 "test_audit": (store.test() or {}).get("gepa_audit", [])},
        "rounds": [{k: r.get(k) for k in ROUND_FIELDS} for r in rounds],
        "teacher_tokens": sum(int(c.get("input_tokens", 0)) + int(c.get("output_tokens", 0))
                              for c in calls),
        "teacher_calls": len(calls),
        "teacher_refusals": refusals,
        "teacher_cost": None,  # no tether backend reports a cost
        "test_audit": {"flagged": (store.test() or {}).get("flagged"),
                       "findings": (store.test() or {}).get("audit", [])},
    }


def teacher_failure(result: dict[str, Any]) -> str | None:
    """Why no teacher call of any build succeeded (the first call's error), or None when
    some call got a reply: a compile whose teacher never answered selected bare for no
    reason of the student's, and says so instead of reporting a result."""
    builds = result.get("builds") or [result]
    # a round the student's budget stopped had its teacher reply
    rounds = [(r, b.get("student_stopped")) for b in builds for r in b["rounds"]]
    if not rounds or any(r["decision"] != "error" or (stop and r.get("error") == stop)
                         for r, stop in rounds):
        return None
    return str(rounds[0][0].get("error") or "the teacher call failed")


def _setting_of(selected: dict[str, Any]) -> str:
    return str(selected["document"]["setting"])


def summarise(dir_: BuildDir) -> dict[str, Any]:
    """The result of a directory: one build's summary, or the mean over several."""
    builds = [build_summary(dir_, dir_.build(k)) for k in dir_.build_indices()]
    # the student's spend is the directory's: its builds share the scores
    student = {"student_tokens": student_spend(dir_),
               "student_token_budget": (dir_.config() or {}).get("student_token_budget")}
    if len(builds) == 1:
        return {**builds[0], **student}
    out: dict[str, Any] = {"selected_hash": [b["selected_hash"] for b in builds],
                           "builds": builds, "rounds": [b["rounds"] for b in builds], **student}
    for arm in ARMS:
        out[arm] = {field: _mean([b[arm].get(field) for b in builds])
                    for field in ("validation", "test", "tokens_per_item")
                    if field in builds[0][arm]}
    out["teacher_tokens"] = _mean([b["teacher_tokens"] for b in builds])
    return out


def _mean(values: list[Any]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None

