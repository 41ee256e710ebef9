"""Images in a trial's call messages, kept as blobs of the run instead of inline.

A call that shows a model a picture carries it as a `data:` URL in an `image_url` part
(tether.models.base.png_data_url). Written as it is, every such call puts the whole
image into `trials.jsonl` and `run.sqlite` (a compile's docs page is ~170 KB per item,
written twice). The store keeps each image once, as a content-addressed blob under
`artifacts/`, and the stored message names it instead:

    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR..."}}
    -> {"type": "image_url", "image_url": {"artifact": "SHA256", "media_type": "image/png"}}

Reading a trial back (`RunStore.trials()`) puts the data URL back from the blob, so
every reader (the report, exports, rescoring, resume) sees the messages that were sent
(the same data URL; the call's request hash was taken from them). A part whose blob is gone
stays a reference (shown as an image that is not there, never an error). Runs written
before images were kept apart have their data URLs inline and read back unchanged.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
from collections.abc import Callable
from typing import Any

from tether.models import CallRecord

__all__ = ["ARTIFACT_KEY", "externalize_calls", "inline_calls"]

#: the key of an `image_url` part's object that names a blob instead of a URL
ARTIFACT_KEY = "artifact"
_MEDIA_KEY = "media_type"

#: put(data, media_type) -> digest: stores one blob
Put = Callable[[bytes, str], str]
#: read(digest) -> the blob's bytes, or None when the run no longer has it
Read = Callable[[str], "bytes | None"]


def _data_url(url: Any) -> tuple[str, bytes] | None:
    """(media type, bytes) of a base64 `data:image/...` URL; None for anything else."""
    if not isinstance(url, str) or not url.startswith("data:image/"):
        return None
    head, sep, payload = url.partition(",")
    if not sep or not head.endswith(";base64"):
        return None
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        return None
    # only what puts back to the same URL is taken out: the message read back must be
    # the one that was sent (its request hash was taken from it)
    if base64.b64encode(data).decode("ascii") != payload:
        return None
    return head.removeprefix("data:").removesuffix(";base64"), data


def _map_parts(messages: list[Any], change: Callable[[dict[str, Any]], dict[str, Any] | None]
               ) -> list[Any] | None:
    """`messages` with each image part's `image_url` object replaced by `change(obj)`
    (None from `change`: kept); None when nothing changed (the caller keeps its list)."""
    out: list[Any] = []
    changed = False
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            out.append(message)
            continue
        parts: list[Any] = []
        for part in content:
            obj = part.get("image_url") if isinstance(part, dict) else None
            new = change(obj) if (isinstance(obj, dict) and part.get("type") == "image_url"
                                  ) else None
            if new is None:
                parts.append(part)
            else:
                parts.append({**part, "image_url": new})
                changed = True
        out.append({**message, "content": parts})
    return out if changed else None


def _with_messages(calls: list[CallRecord], change: Callable[[dict[str, Any]],
                   dict[str, Any] | None]) -> list[CallRecord]:
    out = []
    for call in calls:
        messages = _map_parts(call.messages, change)
        out.append(call if messages is None else dataclasses.replace(call, messages=messages))
    return out


def externalize_calls(calls: list[CallRecord], put: Put) -> list[CallRecord]:
    """The calls with every inline image stored through `put` and named by its digest
    (new records where something changed; the given ones are never modified)."""

    def change(obj: dict[str, Any]) -> dict[str, Any] | None:
        found = _data_url(obj.get("url"))
        if found is None:
            return None
        media_type, data = found
        rest = {k: v for k, v in obj.items() if k != "url"}
        return {**rest, ARTIFACT_KEY: put(data, media_type), _MEDIA_KEY: media_type}

    return _with_messages(calls, change)


def inline_calls(calls: list[CallRecord], read: Read) -> list[CallRecord]:
    """The calls with every image reference put back as the data URL that was sent."""

    def change(obj: dict[str, Any]) -> dict[str, Any] | None:
        digest, media_type = obj.get(ARTIFACT_KEY), obj.get(_MEDIA_KEY)
        if not isinstance(digest, str) or not isinstance(media_type, str):
            return None
        data = read(digest)
        if data is None:
            return None
        rest = {k: v for k, v in obj.items() if k not in (ARTIFACT_KEY, _MEDIA_KEY)}
        url = f"data:{media_type};base64," + base64.b64encode(data).decode("ascii")
        return {"url": url, **rest}

    return _with_messages(calls, change)
