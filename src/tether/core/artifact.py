"""Artifacts: what a model produced, content-addressed."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pydantic import BaseModel, Field

#: media type per artifact kind, used for the blob file extension and the report.
MEDIA_TYPES = {
    "program": "text/x-python",
    "html": "text/html",
    "text": "text/plain",
    "shell": "text/x-shellscript",
    "scene": "text/x-python",
}


class Artifact(BaseModel):
    kind: str
    text: str
    meta: dict[str, Any] = Field(default_factory=dict)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)```", re.S)
_THINK = re.compile(r"<think>.*?</think>", re.S)


class Truncated(Exception):
    """A reply cut off before its artifact was complete (an outcome, not a failing artifact)."""


def extract_artifact(kind: str, text: str, *, finish_reason: str | None = None) -> Artifact:
    """Turn a model reply into the artifact of `kind`.

    Programs and HTML come from the last complete fenced block (thinking dropped);
    an unclosed fence, or a reply stopped by the token limit with no complete
    block, is `Truncated`. Other kinds take the reply as it is.
    """
    body = _THINK.sub("", text)
    if kind not in ("program", "html", "scene"):
        return Artifact(kind=kind, text=body.strip())
    blocks = _FENCE.findall(body)
    if blocks:
        return Artifact(kind=kind, text=blocks[-1][1])
    if body.count("```") % 2 == 1 or finish_reason == "length":
        raise Truncated("reply ended inside or before its fenced block")
    return Artifact(kind=kind, text=body.strip())
