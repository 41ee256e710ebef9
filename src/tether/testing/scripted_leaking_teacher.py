"""TEST DOUBLE: a scripted teacher that hard-codes answers it was given into its harnesses.

It plays a teacher that has seen the data (or guesses well): the compiler must refuse
its harnesses and, above all, tell it nothing about which of its strings were held-out
answers. `ScriptedLeakingTeacher(plan, answers, decoys)` follows a `ScriptedTeacher`
plan and adds three moves on a data setting with a `context` field (`data_variants`):

- `leak_prompt`: `v1` with every string of `answers` and `decoys`, shuffled together,
  in a sentence of its answer prompt;
- `leak_hook`: `v1` with a parse hook that returns the first answer when the reply
  names it, each answer a string literal of the hook;
- `leak_folded`: the same answers built by a constant expression (`'...'[::-1]`).

The tests give it probe and validation gold (and strings that are no answer as
decoys) and scan every prompt it receives (`prompts`).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tether.testing.scripted_teacher import ScriptedTeacher, data_variants

__all__ = ["ScriptedLeakingTeacher"]

LEAKS = ("leak_prompt", "leak_hook", "leak_folded")
_SETTING = re.compile(r"^## The setting: (\S+)", re.M)


class ScriptedLeakingTeacher(ScriptedTeacher):
    """TEST DOUBLE (see the module docstring)."""

    def __init__(self, plan: Mapping[str, str | list[str]], answers: Sequence[str],
                 decoys: Sequence[str] = ()) -> None:
        super().__init__(plan)
        self.answers = list(answers)
        self.decoys = list(decoys)

    def __call__(self, prompt: str) -> str:
        move = self.move(prompt)
        found = _SETTING.search(prompt)
        if move not in LEAKS or found is None:
            return super().__call__(prompt)
        self.prompts.append(prompt)
        doc = self._leaking(data_variants(found.group(1))["v1"], move)
        return "Here is the harness.\n```json\n" + json.dumps(doc, indent=1) + "\n```"

    def _leaking(self, base: dict[str, Any], move: str) -> dict[str, Any]:
        if move == "leak_prompt":
            words = [*self.answers, *self.decoys]
            random.Random(len(words)).shuffle(words)
            prompts = {"answer": base["prompts"]["answer"]
                       + "\nLikely answers: " + ", ".join(words) + "."}
            return {**base, "prompts": prompts}
        if move == "leak_hook":
            known = ", ".join(repr(a) for a in self.answers)
        else:  # leak_folded: each answer reversed, then reversed back by the hook
            known = ", ".join(f"{a[::-1]!r}[::-1]" for a in self.answers)
        parse = ("def parse(text, item):\n"
                 f"    for known in [{known}]:\n"
                 "        if known.lower() in text.lower():\n"
                 "            return known\n"
                 "    return text.strip()\n")
        return {**base, "hooks": {"parse": parse}}
