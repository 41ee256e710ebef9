"""Each setting's hooks-only score: the best simple rule with no student call.

The rule sees exactly what a harness's hooks would see, the observation built with every
resource the setting offers, and answers from it alone. The issue requires this to stay
well below the ceiling (the metric on gold answers), or the setting would be solvable by
code and say nothing about the student.

    python -m tether.systems.compile.settings.hooks_only docs --seed 0 --n 50
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

from tether.systems.compile.setting import get_setting
from tether.systems.compile.settings.base import Item


@dataclass(frozen=True)
class HooksOnlyScore:
    setting: str
    n: int
    hooks_only: float  # mean metric of the rule's answers
    ceiling: float  # mean metric of the first gold answer (1.0 unless the metric is lossy)


def hooks_only_score(setting, items: Sequence[Item]) -> HooksOnlyScore:
    """Mean score of `setting.hooks_only_answer` over `items`, next to the gold ceiling."""
    resources = setting.hooks_only_resources()
    rule, ceiling = [], []
    for item in items:
        obs = setting.observation(item, resources)
        rule.append(setting.score(setting.hooks_only_answer(obs), item))
        ceiling.append(setting.score(setting.gold(item)[0], item))
    n = len(items)
    return HooksOnlyScore(
        setting=setting.name,
        n=n,
        hooks_only=sum(rule) / n if n else 0.0,
        ceiling=sum(ceiling) / n if n else 0.0,
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("settings", nargs="+")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=50, help="test items scored")
    args = parser.parse_args(argv)
    for name in args.settings:
        setting = get_setting(name)
        items = setting.splits(args.seed, {"probe": 0, "validation": 0, "test": args.n})["test"]
        result = hooks_only_score(setting, items)
        print(
            f"{name}: hooks-only {result.hooks_only:.3f}  ceiling {result.ceiling:.3f}  "
            f"(n={result.n}, seed={args.seed}, test split)"
        )


if __name__ == "__main__":
    main()
