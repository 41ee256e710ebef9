"""The visual roles of the scene loop: the judge's tournament and the verifier.

Tournament (Algorithm 2, line 15): k delivered outcomes with renders are compared in
k - 1 pairwise judge calls, the winner of each meeting the next challenger (in candidate
order). The judge sees the goal and the two renders and answers A or B; a reply naming
neither keeps the current champion and is counted as invalid. k = 1 costs no call.

Verifier: compares the delivered render with the goal and says what to change. Its
context is reset each round (one system and one user message) unless `memory` is on
(the verifier keeps its own previous exchanges), or the loop hands it the generator's
window as `shared` (the paper's "w/o role asymmetry" ablation: one memory for both
roles, so the verifier reads the generator's task, programs and feedback).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tether.context import TrialContext
from tether.models import Message
from tether.systems.scene.loop.messages import content

JUDGE_ROLE, VERIFIER_ROLE = "judge", "verifier"
JUDGE_SYSTEM = ("You compare renders of Blender scenes. Given a goal image and two candidate "
                "renders A and B, answer with one letter: A or B, whichever is closer to the "
                "goal.")
VERIFIER_SYSTEM = ("You check a Blender scene edit. Compare the current render with the goal "
                   "image and say, briefly and concretely, what still differs (objects, "
                   "positions, colours, lights, shapes) and what to change. Say MATCH when "
                   "they agree.")
_LETTER = re.compile(r"\b([AB])\b")


def parse_choice(reply: str) -> str | None:
    """"A" or "B" from a judge reply: the first standalone letter, else None."""
    stripped = reply.strip().rstrip(".").upper()
    if stripped in ("A", "B"):
        return stripped
    found = _LETTER.search(reply)
    return found.group(1) if found else None


@dataclass
class TournamentResult:
    winner: int  # index into the outcomes compared
    calls: int = 0
    invalid: int = 0
    rounds: list[dict[str, Any]] = field(default_factory=list)


def tournament(ctx: TrialContext, renders: list[bytes], goal: bytes, description: str, *,
               modality: str, max_tokens: int = 16) -> TournamentResult:
    """The index of the render the judge prefers, by k - 1 pairwise comparisons."""
    result = TournamentResult(winner=0)
    for challenger in range(1, len(renders)):
        champion = result.winner
        messages: list[Message] = [
            {"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": content([
                ("text", f"The edit asked for: {description}"), ("goal image", goal),
                ("render A", renders[champion]), ("render B", renders[challenger]),
                ("text", "Which render is closer to the goal? Answer A or B."),
            ], modality)},
        ]
        reply = ctx.generate(JUDGE_ROLE, messages, max_tokens=max_tokens, temperature=0.0)[0]
        result.calls += 1
        choice = parse_choice(reply.text)
        if choice is None:
            result.invalid += 1
        elif choice == "B":
            result.winner = challenger
        result.rounds.append({"a": champion, "b": challenger, "choice": choice})
    return result


@dataclass
class Verifier:
    """The verifier role; `memory` keeps its exchanges across rounds (an ablation)."""

    modality: str
    memory: bool = False
    max_tokens: int = 256
    history: list[Message] = field(default_factory=list)
    calls: int = 0

    def check(self, ctx: TrialContext, render: bytes, goal: bytes, description: str,
              shared: list[Message] | None = None) -> str:
        ask: Message = {"role": "user", "content": content([
            ("text", f"The edit asked for: {description}"), ("goal image", goal),
            ("current render", render), ("text", "What differs, and what should change?"),
        ], self.modality)}
        past = self.history if shared is None else shared
        messages = [{"role": "system", "content": VERIFIER_SYSTEM}, *past, ask]
        reply = ctx.generate(VERIFIER_ROLE, messages, max_tokens=self.max_tokens,
                             temperature=0.0)[0]
        self.calls += 1
        if self.memory:
            self.history += [ask, {"role": "assistant", "content": reply.text}]
        return reply.text.strip()
