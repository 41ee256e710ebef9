"""tether's recorded messages and calls as Inspect chat messages, one conversation per role.

A trial's calls belong to roles (proposer, reviewer, selector...), each with its own
prompts: laid end to end they would read as one conversation in which the proposer's
draft follows the reviewer's system prompt. So a conversation is built from one role's
calls only (`conversation`); the sample's messages are its main role's (`main_role`:
the role of the trial's first call, whose reply is the draft), and every other role's
calls are in the sample's events, each with the messages it was sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ContentImage,
    ContentText,
)
from inspect_ai.tool import ToolCall

from tether.models import CallRecord

#: the role a call without one is shown under
NO_ROLE = "unlabelled"


def role_of(call: CallRecord) -> str:
    return call.role or NO_ROLE


def _content(content: Any) -> str | list[Any]:
    """OpenAI-style content (a string or parts) as Inspect content."""
    if content is None or isinstance(content, str):
        return content or ""
    parts: list[Any] = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            parts.append(ContentText(text=str(part.get("text", ""))))
        elif kind == "image_url":
            url = part.get("image_url")
            parts.append(ContentImage(image=str(url.get("url") if isinstance(url, dict)
                                                else url)))
        else:  # a part Inspect has no type for is kept, as its JSON text
            parts.append(ContentText(text=json.dumps(part, sort_keys=True)))
    return parts


def tool_calls(calls: Iterable[dict[str, Any]]) -> list[ToolCall]:
    out = []
    for call in calls:
        fn = call.get("function") or {}
        try:
            arguments = json.loads(fn.get("arguments") or "{}")
        except json.JSONDecodeError:
            arguments = {"raw": fn.get("arguments")}
        out.append(ToolCall(id=str(call.get("id", "")), function=str(fn.get("name", "")),
                            arguments=arguments if isinstance(arguments, dict)
                            else {"value": arguments}))
    return out


def message(msg: dict[str, Any], model: str | None = None) -> ChatMessage:
    role, content = msg.get("role"), _content(msg.get("content"))
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "assistant":
        return ChatMessageAssistant(content=content, model=model,
                                    tool_calls=tool_calls(msg.get("tool_calls") or [])
                                    or None)
    if role == "tool":
        return ChatMessageTool(content=content, tool_call_id=msg.get("tool_call_id"))
    return ChatMessageUser(content=content)


def reply(call: CallRecord) -> ChatMessageAssistant:
    """The call's reply, naming its model; its metadata holds the call's role, sample
    index, request hash and whether the cache served it."""
    return ChatMessageAssistant(content=call.output, model=call.model_id,
                                tool_calls=tool_calls(call.tool_calls) or None,
                                metadata={"role": call.role, "sample_index": call.sample_index,
                                          "request_hash": call.request_hash,
                                          "cache_hit": call.cache_hit})


def _plain(msg: dict[str, Any]) -> tuple[Any, str]:
    return msg.get("role"), json.dumps(msg.get("content"), sort_keys=True)


def main_role(calls: list[CallRecord]) -> str | None:
    """The role whose conversation a sample's messages show: the first call's."""
    return role_of(calls[0]) if calls else None


def conversation(calls: list[CallRecord], role: str | None = None) -> list[ChatMessage]:
    """The calls of `role` (every call when None) as one conversation: each call's new
    messages then its reply. Another sample of the request just shown adds only its
    reply; a call that continues the conversation shown so far (its messages start with
    it) adds only what is new; any other call (a fresh prompt, a history that kept
    another sample) adds all of its messages."""
    shown: list[tuple[Any, str]] = []
    last_sent: list[tuple[Any, str]] | None = None
    out: list[ChatMessage] = []
    for call in calls:
        if role is not None and role_of(call) != role:
            continue
        sent = [dict(m) for m in call.messages]
        plain = [_plain(m) for m in sent]
        if plain == last_sent:
            new: list[dict[str, Any]] = []
        elif shown and plain[:len(shown)] == shown:
            new = sent[len(shown):]
        else:
            new = sent
        out.extend(message(m) for m in new)
        out.append(reply(call))
        last_sent = plain
        shown = [*plain, _plain({"role": "assistant", "content": call.output})]
    return out
