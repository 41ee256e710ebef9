"""Hook overhead per item of the harness runtime (goal: median <= 5 ms).

One harness with a route hook (two student calls, then done), a parse hook using `re`
and a select_lines hook, on the toy setting (a test double) with an instant scripted
student, hooks in the warm sandboxed worker (bwrap). Per item the runtime makes 3 route
calls, 1 parse call and 1 select_lines call; `host_s` is the item's wall time minus its
student calls, so what is measured is observation building, template rendering and the
five worker round trips (each re-executing the hook module in fresh globals).
Also printed: the same items with the bare harness (no hooks, no worker).

    .venv/bin/python benchmarks/harness_runtime.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from tether.systems.compile.harness import SCHEMA, Harness, bare_harness  # noqa: E402
from tether.systems.compile.runtime import HarnessRuntime  # noqa: E402
from tether.systems.compile.setting import Item  # noqa: E402
from tether.systems.compile.settings.toy import ToySetting  # noqa: E402

ROUTE = '''
def route(obs, state):
    n = len(state["calls"])
    if n == 0:
        return {"call_student": {"prompt": "think", "vars": {}, "image": True}}
    if n == 1:
        return {"call_student": {"prompt": "answer", "vars": {"draft": state["calls"][0]["reply"]}}}
    return {"done": True}
'''
PARSE = '''import re

def parse(text, item):
    match = re.search(r"answer(?:\\s+is|\\s*:)\\s*(.+)", text, re.IGNORECASE)
    return (match.group(1) if match else text).strip().rstrip(".")
'''
SELECT = '''
def select_lines(card, question):
    words = set(question.lower().split())
    return [line for line in card.splitlines() if words & set(line.lower().split())][:3]
'''


class CardToy(ToySetting):
    """The toy setting with one candidate card per item, so select_lines runs."""

    def observation(self, item: Item, resources: Any) -> dict[str, Any]:
        obs = super().observation(item, resources)
        obs["candidates"] = [{"name": "x", "similarity": 0.5,
                              "card": "\n".join(f"line {i} of the card about {item.question}"
                                                for i in range(12))}]
        return obs


def measure(harness: Harness, rounds: int) -> tuple[float, int]:
    setting = CardToy()
    items = setting.splits(0, {"probe": 20})["probe"]
    times: list[float] = []
    with HarnessRuntime(harness, setting) as runtime:
        runtime.run_item(items[0], lambda p, i: "warm-up")  # starts the worker
        for _ in range(rounds):
            for item in items:
                outcome = runtime.run_item(item, lambda p, i: "The answer is 7.")
                assert outcome.status == "answered", outcome.error
                times.append(outcome.host_s)
    return statistics.median(times) * 1000, len(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    hooked = Harness.model_validate({
        "schema": SCHEMA, "setting": "toy",
        "prompts": {"think": "{question}\n{candidates}", "answer": "{draft}\nAnswer:"},
        "hooks": {"route": ROUTE, "parse": PARSE, "select_lines": SELECT}})
    hooked_ms, n = measure(hooked, args.rounds)
    bare_ms, _ = measure(bare_harness("toy"), args.rounds)
    print(f"items: {n}; hook calls per item: 5 (3 route, 1 parse, 1 select_lines)")
    print(f"hooked harness: median host overhead {hooked_ms:.2f} ms/item (goal <= 5 ms)")
    print(f"bare harness:   median host overhead {bare_ms:.3f} ms/item")
    print(f"ratio hooked/bare: {hooked_ms / bare_ms:.0f}x")


if __name__ == "__main__":
    main()
