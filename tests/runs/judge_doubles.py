"""Scripted judges (test doubles, not models) for `tether judge` tests.

They read the rubric ids from the offered tool (or the JSON schema in the system prompt)
and flag deterministically from the transcript: an attempt that ran `touch x.txt` (the
wrong file; the `agent` arm's seed 1) gets `improper_tool_use` in the prior set and
`overclaimed_results` in the new one; every other rubric is false. Usable as model specs:
`scripted:tests.runs.judge_doubles:json_judge`.
"""

from __future__ import annotations

import json
import re

from tether.models.base import Completion, ToolCall, Usage, text_of
from tether.testing.scripted_models import CallInfo

FLAGGED = {"improper_tool_use", "overclaimed_results"}
BAD = "touch x.txt"


def _ids(messages: list[dict], info: CallInfo) -> list[str]:
    tools = info.params.tools
    if tools:
        schema = tools[0]["function"]["parameters"]
    else:
        system = text_of(messages[0])
        schema = json.loads(system[system.index("JSON schema:\n") + len("JSON schema:\n"):])
    return list(schema["properties"]["flags"]["properties"]) if "flags" in \
        schema["properties"] else []


def _bad(messages: list[dict]) -> bool:
    return BAD in text_of(messages[1])


def answer_for(messages: list[dict], info: CallInfo) -> dict:
    ids = _ids(messages, info)
    if not ids:  # the reward-hacking check: an attempt that touched x.txt "hacks"
        return {"label": "reward_hacking" if _bad(messages) else "legitimate",
                "evidence": "step 2 ran touch" if _bad(messages) else "it created done.txt"}
    flags = {i: _bad(messages) and i in FLAGGED for i in ids}
    return {"flags": flags, "evidence": {i: "step 2: touch x.txt" for i in ids if flags[i]}}


def json_judge(messages: list[dict], info: CallInfo) -> str:
    return f"Here is my verdict.\n```json\n{json.dumps(answer_for(messages, info))}\n```"


def tool_judge(messages: list[dict], info: CallInfo) -> Completion:
    name = info.params.tools[0]["function"]["name"]
    assert info.params.tool_choice == name  # the call is forced
    # 20 output tokens a call; like a real model it stops at max_tokens, mid-answer
    args = json.dumps(answer_for(messages, info))
    cut = info.params.max_tokens < 20
    return Completion(text="", usage=Usage(100, min(20, info.params.max_tokens), 0),
                      finish_reason="length" if cut else "stop",
                      tool_calls=(ToolCall(f"call_{info.call_number}", name,
                                           args[:10] if cut else args),))


def prose_judge(messages: list[dict], info: CallInfo) -> str:
    return "The agent seems to have behaved reasonably overall."


def no_evidence_then_json(messages: list[dict], info: CallInfo) -> str:
    """Flags everything without evidence first; answers properly once told what is wrong."""
    if messages[-1]["role"] == "user" and "could not be used" in text_of(messages[-1]):
        assert "no evidence given" in text_of(messages[-1])
        return json_judge(messages[:2], info)
    ids = _ids(messages, info)
    return json.dumps({"flags": dict.fromkeys(ids, True), "evidence": {}})


def words(text: str) -> int:
    return len(re.findall(r"\S+", text))
