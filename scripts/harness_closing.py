"""Summarise harness deployment runs: per run, items, mean score, student tokens per item;
then each pair of runs on one setting compared on their matched items.

    python scripts/harness_closing.py runs/closing-docs-bare runs/closing-docs-recipe ...

Reads each run directory's trials.jsonl (errored trials are listed, never scored);
student tokens are output tokens (prefill excluded), as the trials' facts record them.
Graded settings (docs, ANLS) get a paired bootstrap interval and the sign test, pass/fail
ones (slides) exact McNemar (tether.stats.paired_change).

`gold in answer` is a diagnostic, not the metric: the share of items whose answer
contains one of the gold answers (case-folded), which tells a right value in a wrong
format (a full sentence where the metric wants the value) from a wrong value.
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

from tether.stats import paired_change
from tether.systems.compile.setting import DEFAULT_SIZES
from tether.systems.compile.tasks import setting_of

GRADED = {"docs"}


def load(run: Path) -> dict:
    trials = [json.loads(line) for line in (run / "trials.jsonl").read_text().splitlines()
              if line.strip()]
    by_arm: dict[str, dict] = {}
    for t in trials:
        arm = t["spec"].get("label") or t["spec"]["strategy"]
        row = by_arm.setdefault(arm, {"setting": t["extra"].get("setting") or
                                      t["spec"]["suite"].split("-", 1)[1].split(":")[0],
                                      "scores": {}, "tokens": {}, "errors": 0, "wall": 0.0})
        row["wall"] += t.get("wall_s") or 0.0
        if t["status"] == "error" or t.get("metric") is None:
            row["errors"] += 1
            continue
        row["scores"][t["spec"]["task_id"]] = float(t["metric"]["score"])
        row.setdefault("answers", {})[t["spec"]["task_id"]] = str(
            (t["metric"].get("raw") or {}).get("answer", ""))
        row["tokens"][t["spec"]["task_id"]] = int(t["extra"].get("student_output_tokens", 0))
    return {f"{run.name}:{arm}": row for arm, row in by_arm.items()}


def gold_in_answer(setting: str, answers: dict[str, str]) -> float:
    items = {i.item_id: i for i in setting_of(setting).splits(0, dict(DEFAULT_SIZES))["test"]}
    hits = [any(g.casefold() in a.casefold() for g in setting_of(setting).gold(items[k]))
            for k, a in answers.items()]
    return sum(hits) / len(hits) if hits else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    args = parser.parse_args(argv)
    arms: dict[str, dict] = {}
    for run in args.runs:
        arms.update(load(run))
    print("| run:arm | setting | items | errors | mean score | student tokens/item "
          "| wall s/item | gold in answer |")
    print("|---|---|---|---|---|---|---|---|")
    for name, row in arms.items():
        n = len(row["scores"])
        mean = sum(row["scores"].values()) / n if n else float("nan")
        tok = sum(row["tokens"].values()) / n if n else float("nan")
        wall = row["wall"] / max(1, n + row["errors"])
        inside = gold_in_answer(row["setting"], row.get("answers", {}))
        print(f"| {name} | {row['setting']} | {n} | {row['errors']} | {mean:.3f} | {tok:.1f} "
              f"| {wall:.1f} | {inside:.3f} |")
    print("\n| A -> B | matched items | A | B | B - A (points) | test | p |")
    print("|---|---|---|---|---|---|---|")
    for (a, ra), (b, rb) in itertools.combinations(arms.items(), 2):
        if ra["setting"] != rb["setting"]:
            continue
        c = paired_change(ra["scores"], rb["scores"], graded=ra["setting"] in GRADED)
        if c.n == 0:
            continue
        interval = "" if c.low is None else f" [{c.low:+.1f}, {c.high:+.1f}]"
        print(f"| {a} -> {b} | {c.n} | {c.reference:.1f} | {c.changed:.1f} | "
              f"{c.delta:+.1f}{interval} | {c.test} | {c.p_value:.3g} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
