"""TEST DOUBLE: a scripted student with tunable per-decision accuracies. Not a model.

It answers harness prompts the way the paper describes small students failing, one
decision at a time, each right with its own probability (a deterministic coin per
(seed, question, decision), so reruns agree):

- `request`: asked "Do you want it? Answer yes or no." -> "yes" when right, else "no";
- `name`: asked to name the entity -> its name, else a name that is in no inventory;
- `pick`: a numbered option list ("0. None of them") -> the right option, else another;
- `read`: evidence in the prompt -> the value on the FIRST `Fact:` or `Verdict hint:`
  line (position bias: with several cards it reads the first), right with `read`,
  else "unsure"; no such line -> a coin-flip "yes"/"no" for yes/no questions, else
  "unsure" (raw numbers are not read);
- `format`: the reply is the bare value when right, else "Answer: VALUE" with an
  explanation line (a parser recovers it, a plain strip does not); without an answer
  contract in the prompt (a line "Answer ..." / "... one word ...") the format
  accuracy is halved.

Build it with the item facts it must know: `names[question]` (the entity shown).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Accuracies", "ScriptedStudent"]

_OPTION = re.compile(r"^(\d+)\.\s+(.+)$", re.M)
_EVIDENCE = re.compile(r"^(?:Fact|Verdict hint):\s*(\S.*?)\s*$", re.M)
_CONTRACT = re.compile(r"^\s*(answer\b.*|.*\b(one word|single word|short phrase)\b.*)$",
                       re.I | re.M)
_QUESTION = re.compile(r"^Question:\s*(.+?)\s*$", re.M)
WRONG_NAME = "Nowhereland"


@dataclass(frozen=True)
class Accuracies:
    pick: float = 1.0
    name: float = 1.0
    read: float = 1.0
    request: float = 1.0
    format: float = 1.0


class ScriptedStudent:
    """TEST DOUBLE (see the module docstring): `student(prompt, image) -> reply`."""

    def __init__(self, names: Mapping[str, str], accuracies: Accuracies = Accuracies(),
                 seed: int = 0) -> None:
        self.names = dict(names)
        self.acc = accuracies
        self.seed = seed
        self.calls: list[str] = []

    def _coin(self, p: float, question: str, decision: str) -> bool:
        digest = hashlib.sha256(f"{self.seed}|{question}|{decision}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < p

    def _question(self, prompt: str) -> str:
        match = _QUESTION.search(prompt)
        if match:
            return match.group(1)
        known = [q for q in self.names if q in prompt]
        return known[0] if known else prompt.splitlines()[0] if prompt else ""

    def __call__(self, prompt: str, image: bytes | None = None) -> str:
        self.calls.append(prompt)
        q = self._question(prompt)
        if "Answer yes or no." in prompt and "Do you want it?" in prompt:
            return "yes" if self._coin(self.acc.request, q, "request") else "no"
        if "Name the entity shown" in prompt:
            return self.names.get(q, "") if self._coin(self.acc.name, q, "name") else WRONG_NAME
        if "0. None of them" in prompt:
            return self._pick(prompt, q)
        return self._answer(prompt, q)

    def _pick(self, prompt: str, q: str) -> str:
        options = [(int(k), name.strip()) for k, name in _OPTION.findall(prompt) if k != "0"]
        right = next((k for k, name in options if name == self.names.get(q)), None)
        if right is not None and self._coin(self.acc.pick, q, "pick"):
            return str(right)
        wrong = [k for k, _ in options if k != right]
        return str(wrong[0]) if wrong else "0"

    def _answer(self, prompt: str, q: str) -> str:
        found = _EVIDENCE.search(prompt)
        if found:
            value = found.group(1) if self._coin(self.acc.read, q, "read") else "unsure"
        elif q.lower().startswith(("is ", "are ", "does ")):
            value = "yes" if self._coin(0.5, q, "guess") else "no"
        else:
            value = "unsure"
        p_format = self.acc.format if _CONTRACT.search(prompt) else self.acc.format / 2
        if self._coin(p_format, q, "format"):
            return value
        return f"Answer: {value}\nI found it in the text above."

    def script(self, messages: list[dict[str, Any]], info: Any) -> str:
        """The double as a `ScriptedModel` callable (the prompt is the last message)."""
        content = messages[-1]["content"]
        text = content if isinstance(content, str) else "".join(
            p.get("text", "") for p in content if p.get("type") == "text")
        return self(text, None)
