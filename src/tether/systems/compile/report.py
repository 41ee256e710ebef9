"""The HC section: what a `tether compile` recorded, as report numbers.

    numbers = hc_numbers(Path("builds/docs"))       # dict, JSON-ready
    path, numbers = write_hc_report(Path("builds/docs"))   # the HC page alone

A compile's `--out` is a run directory: `tether report DIR` is the hub's report of its
trials (each student scoring), with the section `harness_builds` holding these numbers
(`BuildsSection`). A build directory an earlier tether wrote is reported on its own page
(`report_build_dir`, the entry point `tether.directory_reports`) with the same numbers.

Per build: the round table (hash, admissible, probe, validation, decision), the test
scores of bare / H0 / selected / one-shot / human recipe / student-routed / CoT + vote /
GEPA (the arms the compile scored) with 95% intervals (Wilson for pass/fail metrics, a
bootstrap of the mean for graded ones) and each arm's paired change against bare on the
same test items (exact McNemar for pass/fail, the sign test with a paired bootstrap
interval for graded ANLS), teacher tokens and cost, student generated tokens per item,
and the interventions table of the selection (each over the items it applies to, with
the count of items where it is n/a). Where GEPA ran, its search (candidates, metric
calls and teacher tokens against their matched budgets, why it stopped), its best prompts
and the selection's paired change against it on the same test items (the paper's
Table 43 row "HC - GEPA, paired").

`intervention_rows` is the one interventions table: each decision intervention as a
paired change against its reference harness on matched items (`tether.stats.paired_change`); a
run directory's report uses it for the `compiled_harness` trials run with an
`intervention` param.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jinja2 import Environment
from pydantic import BaseModel, ConfigDict

from tether.core import facts_of
from tether.errors import ConfigError
from tether.report import Section, SectionInput, environment, register_section
from tether.runs import COMMAND_META, DB_NAME, RunStore, StoreError
from tether.stats import bootstrap_mean, paired_change, wilson_interval
from tether.systems.compile import (
    ARMS,
    COMMAND,
    CompileRun,
    CompileView,
    HarnessFacts,
    OldBuildDir,
    get_setting,
    is_old_build_dir,
    summarise,
    teacher_cost,
)
from tether.systems.compile.report_lead import compile_lead

__all__ = ["ARMS", "across_builds", "build_dirs", "gepa_numbers", "harness_parts",
           "hc_numbers", "intervention_rows", "is_build_dir", "is_compile_run", "numbers_of",
           "protocol_pairs",
           "paired_row", "run_interventions", "write_hc_report"]


def is_build_dir(path: Path) -> bool:
    """True for a build directory an earlier tether wrote (`tether compile` output)."""
    return is_old_build_dir(path)


def is_compile_run(path: Path) -> bool:
    """True for a run directory a `tether compile` wrote."""
    if not (path / DB_NAME).is_file():
        return False
    try:
        with RunStore.open(path, readonly=True) as store:
            return bool(store.meta(COMMAND_META) == COMMAND)
    except (StoreError, ConfigError, sqlite3.DatabaseError):
        return False  # not a compile's: the hub says what is wrong with the store


def build_dirs(run_dir: Path) -> list[Path]:
    """The compiles inside a run directory (run directories of `tether compile`, and
    build directories of an earlier tether), by name."""
    return sorted(p for p in run_dir.iterdir()
                  if p.is_dir() and (is_build_dir(p) or is_compile_run(p)))


def _interval(scores: Mapping[str, float], graded: bool) -> tuple[float | None, float | None]:
    n = len(scores)
    if n == 0:
        return None, None
    if graded:
        boot = bootstrap_mean([(k, 0, v) for k, v in scores.items()])
        return boot.low, boot.high
    return wilson_interval(sum(1 for v in scores.values() if v >= 1.0), n)


def paired_row(reference: Mapping[str, float], changed: Mapping[str, float], *,
               graded: bool) -> dict[str, Any]:
    """B vs A on matched items, in points: delta, its 95% bootstrap interval, the exact
    McNemar p (pass/fail) or the sign-test p (graded)."""
    change = paired_change(reference, changed, graded=graded)
    return {"n": change.n, "reference": change.reference, "changed": change.changed,
            "delta": change.delta, "low": change.low, "high": change.high,
            "p_value": change.p_value, "test": change.test}


def intervention_rows(reference: Mapping[str, float],
                      changed: Mapping[str, Mapping[str, float] | str], *,
                      graded: bool, na_items: Mapping[str, int] | None = None
                      ) -> list[dict[str, Any]]:
    """One row per intervention: its paired change against the reference harness on
    the items where it applies (`na_items[name]`: how many items it was n/a on), or
    `na` with the reason where it applies to no item."""
    rows: list[dict[str, Any]] = []
    for name, scores in changed.items():
        if isinstance(scores, str):
            rows.append({"intervention": name, "na": scores})
        else:
            rows.append({"intervention": name, "na": None,
                         "na_items": (na_items or {}).get(name, 0),
                         **paired_row(reference, scores, graded=graded)})
    return rows


def _build_numbers(dir_: CompileView, k: int, graded: bool) -> dict[str, Any]:
    store = dir_.build(k)
    test = store.test() or {}
    arms = test.get("arms", {})
    scores: dict[str, Mapping[str, float]] = {}
    for arm, row in arms.items():
        found = dir_.split_score("test", row.get("key") or row["hash"]) if row else None
        if found is not None:
            scores[arm] = found.scores
    bare = scores.get("bare", {})
    rows: list[dict[str, Any]] = []
    for arm in ARMS:
        if arm not in arms:
            continue  # not among the compile's comparators (or no recipe bundled)
        row = arms[arm]
        if row is None:
            rows.append({"arm": arm, "hash": None, "key": None})
            continue
        low, high = _interval(scores.get(arm, {}), graded)
        rows.append({"arm": arm, "hash": row["hash"], "key": row.get("key") or row["hash"],
                     "n": row["n"], "mean": row["mean"],
                     "low": low, "high": high, "tokens_per_item": row["tokens_per_item"],
                     "infra_errors": int(row.get("infra_errors", 0)),
                     # items the student's budget refused (no mean then)
                     "budget_stopped": int(row.get("budget_stopped", 0)),
                     "vs_bare": None if arm == "bare" else
                     paired_row(bare, scores.get(arm, {}), graded=graded)})
    constant = test.get("constant")
    if constant:  # one answer on every test item (constant_answer.py): no model, no tokens
        low, high = _interval(constant["scores"], graded)
        rows.append({"arm": "constant", "answer": constant["answer"], "hash": None,
                     "key": "constant", "n": constant["n"], "mean": constant["mean"],
                     "low": low, "high": high, "tokens_per_item": 0.0, "infra_errors": 0,
                     "budget_stopped": 0,
                     "vs_bare": paired_row(bare, constant["scores"], graded=graded)})
    changed: dict[str, Mapping[str, float] | str] = {}
    na_items: dict[str, int] = {}
    for name, row in (test.get("interventions") or {}).items():
        if "na" in row:
            changed[name] = row["na"]
        else:
            found = dir_.split_score("test", row["key"])
            if found is not None:
                changed[name] = found.scores
                na_items[name] = len(found.na)
    # a call the teacher's budget refused was never made: counted apart
    calls = [c for c in store.teacher_calls() if not c.get("refused")]
    refusals = len(store.teacher_calls()) - len(calls)
    selected = store.selected() or {}
    return {
        "build": k, "rounds": store.rounds(), "selected_hash": selected.get("hash"),
        "selected_is_bare": selected.get("is_bare"), "stopped": selected.get("stopped"),
        "protocol": selected.get("protocol"), "shared_h0": selected.get("shared_h0"),
        "student_stopped": selected.get("student_stopped") or test.get("student_stopped"),
        "harness": harness_parts(selected.get("document")),
        "h0_hash": (selected.get("h0") or {}).get("hash"),
        "arms": rows,
        "teacher": {"calls": len(calls), "refusals": refusals,
                    "input_tokens": sum(int(c.get("input_tokens", 0)) for c in calls),
                    "output_tokens": sum(int(c.get("output_tokens", 0)) for c in calls),
                    "errors": sum(1 for c in calls if c.get("error")),
                    "cost": teacher_cost(calls, (dir_.config() or {}).get("teacher"))},
        "interventions": intervention_rows(scores.get("selected", {}), changed, graded=graded,
                                           na_items=na_items),
        "audit": {"flagged": test.get("flagged"), "findings": test.get("audit", [])},
        "gepa": gepa_numbers(store.gepa(), test, scores, graded),
    }


def gepa_numbers(row: Mapping[str, Any] | None, test: Mapping[str, Any],
                 scores: Mapping[str, Mapping[str, float]], graded: bool
                 ) -> dict[str, Any] | None:
    """The GEPA comparator's search and the selection's paired change against it (the
    selection minus GEPA, in points); None where GEPA did not run."""
    if row is None:
        return None
    paired = None
    if scores.get("gepa") and scores.get("selected"):
        paired = paired_row(scores["gepa"], scores["selected"], graded=graded)
    keys = ("hash", "is_seed", "admissible", "violations", "validation", "seed_validation",
            "searched",
            "candidates", "metric_calls", "budget", "teacher_tokens", "teacher_calls",
            "stopped")
    return {**{k: row.get(k) for k in keys}, "variant": row.get("variant", "prompt"),
            "prompts": dict((row.get("document") or {}).get("prompts") or {}),
            "document": row.get("document"),
            "selected_vs_gepa": paired, "audit": list(test.get("gepa_audit") or [])}


def harness_parts(document: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The selected harness as the report shows it: its prompts, decode, resources and
    hooks (sources), each as stored; None when there is no selection yet."""
    if not document:
        return None
    return {"prompts": dict(document.get("prompts") or {}),
            "decode": dict(document.get("decode") or {}),
            "resources": dict(document.get("resources") or {}),
            "answer_mode": document.get("answer_mode"),
            "hooks": {k: v for k, v in (document.get("hooks") or {}).items() if v}}


def across_builds(builds: list[dict[str, Any]]) -> dict[str, Any] | None:
    """With several builds: each build's test scores of bare, H0 and the selection (and
    H0 -> selected in points), and their mean over the builds; None for one build."""
    if len(builds) < 2:
        return None
    rows = []
    for b in builds:
        arms = {a["arm"]: a.get("mean") for a in b["arms"]}
        h0, sel = arms.get("h0"), arms.get("selected")
        rows.append({"build": b["build"], "protocol": b.get("protocol"),
                     "bare": arms.get("bare"), "h0": h0, "selected": sel,
                     "h0_to_selected": None if h0 is None or sel is None else
                     100 * (sel - h0),
                     "selected_hash": b["selected_hash"],
                     "selected_is_bare": b["selected_is_bare"]})

    def mean(key: str) -> float | None:
        values = [r[key] for r in rows if r[key] is not None]
        return sum(values) / len(values) if values else None

    return {"rows": rows, "mean": {k: mean(k) for k in ("bare", "h0", "selected",
                                                         "h0_to_selected")},
            "pairs": protocol_pairs(builds)}


def protocol_pairs(builds: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The shared-H0 mode (compiler/plan.py): per replicate, the one H0 and the test
    scores of the selections under protocols A and B (B - A in points), and their mean
    (the paper's Table 23 layout); None when no build shares its H0."""
    by_build = {str(b["build"]): b for b in builds}
    rows: list[dict[str, Any]] = []
    for b in builds:
        shared = b.get("shared_h0") or {}
        if b.get("protocol") != "A" or shared.get("written_by") != str(b["build"]):
            continue
        other = by_build.get(str(shared.get("read_by")))
        if other is None:
            continue
        a_arms = {x["arm"]: x.get("mean") for x in b["arms"]}
        b_arms = {x["arm"]: x.get("mean") for x in other["arms"]}
        sel_a, sel_b = a_arms.get("selected"), b_arms.get("selected")
        rows.append({"builds": [b["build"], other["build"]], "h0_hash": b.get("h0_hash"),
                     "same_h0": b.get("h0_hash") == other.get("h0_hash"),
                     "h0": a_arms.get("h0"), "selected_a": sel_a, "selected_b": sel_b,
                     "b_minus_a": None if sel_a is None or sel_b is None
                     else 100 * (sel_b - sel_a)})
    if not rows:
        return None

    def mean(key: str) -> float | None:
        values = [float(r[key]) for r in rows if r[key] is not None]
        return sum(values) / len(values) if values else None

    return {"rows": rows, "mean": {k: mean(k) for k in ("h0", "selected_a", "selected_b",
                                                         "b_minus_a")}}


def hc_numbers(path: Path) -> dict[str, Any]:
    """The HC section's numbers of a compile's directory, of either layout (see the
    module docstring)."""
    if is_build_dir(path):
        return numbers_of(OldBuildDir(path), str(path))
    with CompileRun.read(path) as run:
        return numbers_of(run, str(path))


def numbers_of(dir_: CompileView, where: str) -> dict[str, Any]:
    """The HC section's numbers of one compile."""
    config = dir_.config() or {}
    setting = get_setting(str(config.get("setting")))
    graded = getattr(setting, "aggregation", "") == "mean_score"
    builds = [_build_numbers(dir_, k, graded) for k in dir_.build_indices()]
    return {"dir": where, "config": config, "graded": graded, "builds": builds,
            "across": across_builds(builds), "result": dir_.result() or summarise(dir_)}


def write_hc_report(path: Path, out: Path | None = None) -> tuple[Path, dict[str, Any]]:
    """Render the HC section of `path` alone to `out` (default DIR/report.html)."""
    numbers = hc_numbers(path)
    target = (out or path / "report.html").resolve()
    html = environment().get_template("harness.html.j2").render(hc=numbers)
    target.parent.mkdir(parents=True, exist_ok=True)  # as a run's report: --out NEW/x.html
    target.write_text(html, encoding="utf-8")
    return target, numbers


def run_interventions(entries: list[Any]) -> list[dict[str, Any]]:
    """For a run directory: per harness, its `compiled_harness` trials run with an
    intervention as paired changes against its trials without one on the same items."""
    by_harness: dict[str, dict[str | None, dict[str, float]]] = {}
    settings: dict[str, str] = {}
    for e in entries:
        found = facts_of(e.record.extra, HarnessFacts)
        if found is None or e.value is None:
            continue
        arms = by_harness.setdefault(found.harness_hash, {})
        item = f"{e.key[0]}#{e.key[1]}"
        arms.setdefault(found.intervention, {})[item] = float(e.value)
        settings[found.harness_hash] = found.setting
    out = []
    for harness, arms in sorted(by_harness.items()):
        reference = arms.get(None)
        changed = {k: v for k, v in sorted(arms.items(), key=lambda kv: str(kv[0]))
                   if k is not None}
        if reference is None or not changed:
            continue
        graded = getattr(get_setting(settings[harness]), "aggregation", "") == "mean_score"
        out.append({"harness": harness,
                    "rows": intervention_rows(reference, changed, graded=graded)})
    return out


def report_build_dir(path: Path, out: Path | None = None
                     ) -> tuple[Path, dict[str, Any]] | None:
    """`tether report` of a build directory an earlier tether wrote (the entry point
    `tether.directory_reports`): its HC report, or None when `path` is not one. A
    compile's run directory is reported by the hub, with `BuildsSection`; one with no
    trial to report (the student's budget refused the first item) gets the HC report."""
    if is_build_dir(path) or (is_compile_run(path) and not _has_trials(path)):
        return write_hc_report(path, out)
    return None


def _has_trials(path: Path) -> bool:
    with RunStore.open(path, readonly=True) as store:
        return bool(store.statuses())


class HarnessInterventions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    harness: str  # the harness hash
    rows: list[dict[str, Any]]  # report.harness.intervention_rows


class InterventionNumbers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    harnesses: list[HarnessInterventions]


class BuildNumbers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    builds: list[dict[str, Any]]  # numbers_of each compile (see the module docstring)


@register_section
class InterventionsSection(Section):
    name = "interventions"
    numbers_model = InterventionNumbers
    template = "interventions_table.html.j2"
    templates = "tether.systems.compile"
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
    templates = "tether.systems.compile"
    order = 20
    placement = "end"

    def compute(self, run: SectionInput) -> BuildNumbers | None:
        # the run itself when a compile wrote it, then the compiles inside it
        found = [numbers_of(CompileRun(run.store), str(run.run_dir))] \
            if run.store.meta(COMMAND_META) == COMMAND else []
        found += [hc_numbers(path) for path in build_dirs(run.run_dir)]
        return BuildNumbers(builds=found) if found else None

    def lead(self, numbers: dict[str, Any]) -> str | None:
        """A compile's answer: its selection on the test split against the bare student
        (the arms table of the first screen pools every split the compile scored)."""
        return compile_lead(numbers["builds"])

    def render(self, env: Environment, numbers: dict[str, Any]) -> str:
        section = env.get_template(self.template)
        return "\n".join("<h2>Harness compilation</h2>\n" + section.render(hc=hc)
                         for hc in numbers["builds"])
