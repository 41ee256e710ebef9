"""The harness section of `tether demo`: a frozen small student with and without a harness.

The demo's model answers the first `docs` test items (rendered invoices and receipts,
DocVQA-like, scored by ANLS) as a text student, twice: bare (the question alone) and
with the bundled human recipe (the page's tesseract OCR under the paper's context frame,
a short-answer objective and a parser). It is a real run through the same runner, store
and report as any study, in `RUN_DIR/harness/` with its own `report.html`; the demo
prints per item both answers, their scores and the student's generated tokens (output
tokens only, prefill excluded), then both means and the paired change (bootstrap
interval of the mean difference, sign test). The OCR is cached, so a second demo runs no
tesseract process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tether.core import TrialRecord

__all__ = ["ARMS", "harness_demo_config", "harness_section"]

ARMS = ("bare", "human_recipe")


def harness_demo_config(spec: str, setting: str, n_items: int, sandbox: str) -> dict[str, Any]:
    """bare vs human_recipe on the first `n_items` test items of `setting`."""
    from tether.systems.compile import suite_name

    return {"name": f"demo-harness-{setting}", "suites": [suite_name(setting, "test")],
            "limit": n_items, "strategies": [{"name": arm} for arm in ARMS],
            "models": {"proposer": spec, "student": spec}, "seeds": [0],
            "run": {"concurrency": 1, "sandbox": sandbox}}


def _cell(r: TrialRecord | None) -> tuple[str, float | None, int | None]:
    if r is None:
        return "-", None, None
    if r.status == "error":  # the kind says why (the message is in the report)
        return f"[red]error[/] ({escape(r.error_kind or 'no reason recorded')})", None, None
    raw = (r.metric.raw or {}) if r.metric is not None else {}
    answer = str(raw.get("answer", ""))
    tokens = int(r.extra.get("student_output_tokens", r.tokens("output")))
    return answer, r.score, tokens


def _short(text: str, width: int = 28) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def harness_table(records: list[TrialRecord], questions: dict[str, str]
                  ) -> tuple[Table, dict[str, Any]]:
    """Per item: each arm's answer, score and student tokens; and the summary numbers.
    `questions` maps item ids to their question."""
    from tether.stats import paired_change

    by_item: dict[str, dict[str, TrialRecord]] = {}
    for r in records:
        by_item.setdefault(r.spec.task_id, {})[r.spec.arm] = r
    table = Table(title="docs: the student bare vs with the human recipe (ANLS, text student)")
    for col in ("item", "question", "bare answer", "score", "tokens",
                "recipe answer", "score", "tokens"):
        table.add_column(col)
    scores: dict[str, dict[str, float]] = {arm: {} for arm in ARMS}
    tokens: dict[str, list[int]] = {arm: [] for arm in ARMS}
    for item, arms in by_item.items():
        row = [item.rsplit("-", 1)[-1], _short(questions.get(item, ""))]
        for arm in ARMS:
            answer, score, n = _cell(arms.get(arm))
            row += [_short(answer, 20), "-" if score is None else f"{score:.2f}",
                    "-" if n is None else str(n)]
            if score is not None:
                scores[arm][item] = score
            if n is not None:
                tokens[arm].append(n)
        table.add_row(*row)
    change = paired_change(scores["bare"], scores["human_recipe"], graded=True)
    summary = {
        "items": len(by_item),
        "mean_score": {arm: (sum(s.values()) / len(s) if s else None)
                       for arm, s in scores.items()},
        "tokens_per_item": {arm: (sum(t) / len(t) if t else None) for arm, t in tokens.items()},
        "delta_points": change.delta, "low": change.low, "high": change.high,
        "p_value": change.p_value, "matched": change.n,
    }
    return table, summary


def harness_section(console: Console, spec: str, out: Path, *, n_items: int = 20,
                    sandbox: str = "bwrap", setting: str = "docs") -> dict[str, Any]:
    """Run bare vs human_recipe on `n_items` items into `out`, print and return the summary."""
    from tether.report import build_report, write_report
    from tether.runs import RunRequest, execute, prepare
    from tether.systems.compile import load_harness_suite

    console.print(f"[bold]harness[/]: {spec} as a text student on {n_items} `{setting}` items, "
                  "bare vs the bundled human recipe (OCR in a context frame + a parser)")
    out.parent.mkdir(parents=True, exist_ok=True)
    config_path = out.parent / f"{out.name}.config.json"
    config_path.write_text(json.dumps(harness_demo_config(spec, setting, n_items, sandbox)))
    try:
        prepared = prepare(RunRequest(config=str(config_path), out=str(out)),
                           load=load_harness_suite)
    finally:
        config_path.unlink()
    result = execute(prepared)
    questions = {p.task.id: p.task.prompt for p in prepared.planned}
    table, summary = harness_table(result.records, questions)
    console.print(table)
    mean, tok = summary["mean_score"], summary["tokens_per_item"]
    interval = ("" if summary["low"] is None
                else f" [{summary['low']:+.1f}, {summary['high']:+.1f}]")
    console.print(
        f"mean ANLS: bare {_num(mean['bare'])}, recipe {_num(mean['human_recipe'])} "
        f"({summary['delta_points']:+.1f} points{interval}, sign test p = "
        f"{summary['p_value']:.3g}); student tokens per item: bare {_num(tok['bare'], 1)}, "
        f"recipe {_num(tok['human_recipe'], 1)}", highlight=False)
    prepared.store.set_meta("harness_demo", summary)
    report = build_report(prepared.store)
    path = write_report(report, prepared.store, out / "report.html")
    prepared.store.close()
    console.print(f"harness run: {out}\nharness report: {path}", highlight=False,
                  soft_wrap=True)
    return {**summary, "report": str(path)}


def _num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"
