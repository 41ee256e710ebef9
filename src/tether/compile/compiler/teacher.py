"""The teacher: a `tether.models` Model called under a token budget, every call recorded.

    teacher = TeacherClient(model, build_store, seed=3, temperature=0.7, max_tokens=2048)
    reply = teacher.call("r01-s0", prompt)      # TeacherReply(text, error, tokens)

Each call is written to the build's `teacher/KEY.json` (prompt, reply, input and output
tokens, cost where the provider reports one: tether's backends report none, so null,
latency, error). A key already recorded is answered from its file without calling the
model: `tether compile --resume` replays the teacher's earlier replies, so a resumed
build makes the decisions it would have made. An API error (after the backend's own
retries) or an exhausted budget is a reply with `error` set: the round is recorded as
an error and the build goes on.

`extract_json(text)` finds the teacher's JSON object in a reply: the first ```json (or
bare ```) fence holding an object, else the whole reply, else the first balanced object.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

from tether.compile.compiler.store import BuildStore
from tether.models.base import Model
from tether.models.errors import ModelError

__all__ = ["TeacherClient", "TeacherReply", "extract_json"]


@dataclass(frozen=True)
class TeacherReply:
    key: str
    text: str | None  # None when the call failed
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0


class TeacherClient:
    """Budgeted, recorded, replayable teacher calls (see the module docstring)."""

    def __init__(self, model: Model, store: BuildStore, *, seed: int, temperature: float,
                 max_tokens: int, token_budget: int | None = None) -> None:
        self.model = model
        self.store = store
        self.seed = seed
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.token_budget = token_budget

    def tokens_used(self) -> int:
        return sum(int(c.get("input_tokens", 0)) + int(c.get("output_tokens", 0))
                   for c in self.store.teacher_calls())

    def call(self, key: str, prompt: str) -> TeacherReply:
        recorded = self.store.teacher_call(key)
        if recorded is not None and recorded.get("prompt") == prompt:
            return _reply(recorded)
        row: dict[str, Any] = {"key": key, "prompt": prompt, "model": str(self.model.model_id),
                               "seed": self._seed(key), "temperature": self.temperature,
                               "max_tokens": self.max_tokens, "reply": None, "error": None,
                               "input_tokens": 0, "output_tokens": 0, "cost": None,
                               "latency_s": 0.0}
        if self.token_budget is not None and self.tokens_used() >= self.token_budget:
            row["error"] = f"teacher token budget of {self.token_budget} exhausted"
        else:
            started = time.perf_counter()
            try:
                completion = self.model.generate(
                    [{"role": "user", "content": prompt}], max_tokens=self.max_tokens,
                    temperature=self.temperature, seed=row["seed"], role="teacher")[0]
                row.update(reply=completion.text,
                           input_tokens=completion.usage.input_tokens,
                           output_tokens=completion.usage.output_tokens
                           + completion.usage.reasoning_tokens)
            except ModelError as exc:
                row["error"] = f"{type(exc).__name__}: {exc}"
            row["latency_s"] = round(time.perf_counter() - started, 3)
        self.store.write_teacher_call(key, row)
        return _reply(row)

    def _seed(self, key: str) -> int:
        # a different seed per build and per call, the same on a resumed build
        digest = hashlib.sha256(f"{self.seed}|{key}".encode()).digest()
        return int.from_bytes(digest[:4], "big") % 2**31


def _reply(row: dict[str, Any]) -> TeacherReply:
    return TeacherReply(row["key"], row.get("reply"), row.get("error"),
                        int(row.get("input_tokens", 0)), int(row.get("output_tokens", 0)))


def extract_json(text: str) -> dict[str, Any] | None:
    """The teacher's JSON object in `text` (see the module docstring), or None."""
    for block in _fences(text):
        value = _object(block)
        if value is not None:
            return value
    value = _object(text.strip())
    if value is not None:
        return value
    decoder = json.JSONDecoder()
    for start in (i for i, ch in enumerate(text) if ch == "{"):
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _fences(text: str) -> list[str]:
    blocks: list[str] = []
    parts = text.split("```")
    for body in parts[1::2]:  # odd parts sit between fences
        first, _, rest = body.partition("\n")
        blocks.append(rest if first.strip().isalpha() or not first.strip() else body)
    return blocks


def _object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None
