"""What each role of the scene loop is shown: prompts, images or their textual note, and
the generator's bounded history window.

Modality (per role): a VLM gets renders as image parts; a text-only model gets a note in
their place (`[image not shown: ... text-only]`), and the loop records which it was.
`auto` asks the model (`tether.models.base.accepts_images`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tether.context import TrialContext
from tether.errors import ConfigError
from tether.models import Message, accepts_images, png_data_url

MODALITIES = ("auto", "text", "image")


def resolve_modality(ctx: TrialContext, role: str, requested: str = "auto") -> str:
    """"image" or "text" for `role`'s model in this trial."""
    if requested not in MODALITIES:
        raise ConfigError(f"unknown modality {requested!r}", hint=f"one of {', '.join(MODALITIES)}")
    model = ctx.model(role)
    takes_images = accepts_images(model)
    if requested == "image" and not takes_images:
        # Refused before the run: the first image part would fail the call (HTTP 400).
        raise ConfigError(
            f"the {role} model {model.model_id} takes no images, and modality=image was asked",
            hint="add ;modality=text to the strategy (renders become a text note)",
        )
    if requested != "auto":
        return requested
    return "image" if takes_images else "text"


def content(parts: list[tuple[str, str | bytes | None]], modality: str) -> list[dict[str, Any]]:
    """Message content from ("text", str) and (label, png bytes) parts. A text-only role
    gets `[image not shown: LABEL; the model is text-only]` where each image would be."""
    out: list[dict[str, Any]] = []
    for label, value in parts:
        if label == "text":
            out.append({"type": "text", "text": str(value)})
        elif value is None:
            out.append({"type": "text", "text": f"[{label}: none]"})
        elif modality == "image":
            out.append({"type": "text", "text": f"{label}:"})
            assert not isinstance(value, str)  # only the "text" part carries text
            url = png_data_url(bytes(value))
            out.append({"type": "image_url", "image_url": {"url": url}})
        else:
            out.append({"type": "text",
                        "text": f"[image not shown: {label}; the model is text-only]"})
    return out


@dataclass
class Window:
    """The generator's history: pinned messages (system, task, the latest plan) and the
    last `limit` messages of the exchange, whole messages, oldest dropped first. A user
    message that follows another (the pinned task, the plan, a window cut before an
    assistant turn) is merged into it."""

    pinned: list[Message]
    limit: int = 24
    plan: str | None = None
    turns: list[Message] = field(default_factory=list)

    def add(self, role: str, body: str | list[dict[str, Any]]) -> None:
        self.turns.append({"role": role, "content": body})

    def messages(self) -> list[Message]:
        kept = self.turns[-self.limit:] if self.limit > 0 else []
        out = list(self.pinned)
        if self.plan:
            out.append({"role": "user", "content": f"Your plan (pinned):\n{self.plan}"})
        merged: list[Message] = []
        for message in out + kept:
            if merged and merged[-1]["role"] == message["role"] == "user":
                # Consecutive user messages are merged: chat templates expect alternation.
                merged[-1] = {"role": "user",
                              "content": _join(merged[-1]["content"], message["content"])}
            else:
                merged.append(message)
        return merged


def _join(a: str | list[dict[str, Any]], b: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    def parts(x: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"type": "text", "text": x}] if isinstance(x, str) else list(x)

    return parts(a) + [{"type": "text", "text": "\n\n"}] + parts(b)


def _short(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, list):
        return [_short(v) for v in value]
    return value


def state_summary(state: dict[str, Any] | None, limit: int = 80) -> str:
    """The inspect action's answer: the captured numeric cells (objects, lights, cameras
    first, node sockets last) and bindings of a record, one per line (at most `limit`
    lines, then how many were left out)."""
    if not state:
        return "No scene state was captured for the current program."
    cells = state.get("cells") or {}
    keys = sorted(cells, key=lambda k: ("node_tree" in k or "modifiers" in k, k))
    lines = [f"{k} = {_short(cells[k])}" for k in keys]
    bindings = state.get("bindings") or {}
    items = bindings.items() if isinstance(bindings, dict) else enumerate(bindings)
    lines += [f"binding {k}: {v}" for k, v in items]
    extra = len(lines) - limit
    return "\n".join(lines[:limit] + ([f"... ({extra} more)"] if extra > 0 else []))


def trace_summary(events: list[dict[str, Any]], limit: int = 20) -> str:
    """The trace-summary ablation: the program's observed writes, one per line."""
    rows = []
    for e in events[:limit]:
        owner = e.get("owner") or ["?", "?"]
        index = "" if e.get("index") is None else f"[{e['index']}]"
        rows.append(f"line {e.get('line')}: {owner[0]}['{owner[1]}'].{e.get('path')}{index} = "
                    f"{e.get('value')!r} (read back {e.get('readback')!r})")
    if len(events) > limit:
        rows.append(f"... ({len(events) - limit} more writes)")
    return "\n".join(rows) or "(no writes observed)"
