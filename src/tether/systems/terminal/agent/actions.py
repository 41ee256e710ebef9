"""Turning a model reply into one bash action, and a command's result into an observation.

Three reply forms are accepted:
- a native tool call (`Completion.tool_calls`) of the `bash` tool in `BASH_TOOL`, for
  models whose API takes tools (`parse_native_action`);
- a tool call written as text, `<tool_call>{"name": "bash", "arguments": {"command": ...}}
  </tool_call>` (the form chat templates of tool-calling open models emit), and
- the fenced-block protocol for every other model: exactly one ```bash block.

Anything else is a `FormatError` whose message is shown to the model so it can fix
its next reply. Private reasoning (`<think>...</think>`) never counts as the reply
(`strip_private_reasoning`, from `tether.models.replies`, is re-exported here).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tether.models import ToolCall, function_tool, strip_private_reasoning

#: Printed alone as the first line of a command's output, it ends the attempt.
FINISH_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
#: Observations longer than this are shown as head and tail with the elided count.
OBSERVATION_LIMIT = 10_000

_FENCE = re.compile(r"^```[ \t]*([\w+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.S)

#: The one tool offered to models with native tool calls.
BASH_TOOL = function_tool(
    "bash",
    "Run one bash command (or a short script) in the task's working directory and get its "
    "return code and output as JSON. Each call runs in a fresh `bash -c`.",
    {"type": "object",
     "properties": {"command": {"type": "string", "description": "the command to run"}},
     "required": ["command"]})


class FormatError(Exception):
    """The reply holds no single runnable action; `str(self)` is what the model is told."""


@dataclass(frozen=True)
class Action:
    """One parsed action: the command to run, and the form it came in.

    `form` is how this one reply wrote its command; `AgentParams.protocol` is the
    agent's setting for which forms it asks for (the word "protocol" means only that)."""

    command: str
    form: str  # "fenced", "tool_call" (written as text) or "native"


def parse_action(text: str, *, finish_reason: str | None = None) -> Action:
    """The single bash action in a reply; raises FormatError saying what is wrong."""
    body = strip_private_reasoning(text)
    calls = _TOOL_CALL.findall(body)
    if calls:
        return _parse_tool_calls(calls)
    blocks = [(lang.lower(), code) for lang, code in _FENCE.findall(body)]
    bash = [code for lang, code in blocks if lang in ("bash", "sh")]
    if len(bash) == 1 and bash[0].strip():
        return Action(command=bash[0].strip(), form="fenced")
    if finish_reason == "length" and not bash:
        raise FormatError("Your reply was cut off before its ```bash block was complete. "
                          "Keep your reasoning short and put exactly one ```bash block in it.")
    if len(bash) > 1:
        raise FormatError(f"Your reply has {len(bash)} ```bash blocks; it must have exactly "
                          "one. Run one command (or one short script) per reply.")
    if bash:
        raise FormatError("Your ```bash block is empty. Put the command to run inside it.")
    raise FormatError("Your reply has no ```bash block. Every reply must contain exactly one "
                      "```bash block with the command to run next.")


def _parse_tool_calls(calls: list[str]) -> Action:
    if len(calls) != 1:
        raise FormatError(f"Your reply has {len(calls)} tool calls; make exactly one bash call.")
    try:
        call = json.loads(calls[0], strict=False)
    except json.JSONDecodeError as exc:
        raise FormatError(f"Your tool call is not valid JSON ({exc.msg} at char {exc.pos}). "
                          'Write {"name": "bash", "arguments": {"command": "..."}}.') from None
    command = (_bash_command(call.get("name"), call.get("arguments"))
               if isinstance(call, dict) else None)
    if command is None:
        raise FormatError('Your tool call must be {"name": "bash", "arguments": '
                          '{"command": "<non-empty command>"}}.')
    return Action(command=command, form="tool_call")


def _bash_command(name: object, args: object) -> str | None:
    """The command of a bash call, or None when the call is not a usable one."""
    if isinstance(args, str):  # some templates serialize the arguments twice
        try:
            # strict=False: a raw newline or tab inside the command string (models write
            # multi-line commands that way) is what they meant, not a format error.
            args = json.loads(args, strict=False)
        except json.JSONDecodeError:
            return None
    command = args.get("command") if isinstance(args, dict) else None
    if name != "bash" or not isinstance(command, str) or not command.strip():
        return None
    return command.strip()


def parse_native_action(calls: Sequence[ToolCall]) -> Action:
    """The single bash action among a reply's native tool calls; FormatError otherwise."""
    if len(calls) != 1:
        raise FormatError(f"Your reply made {len(calls)} tool calls; make exactly one call "
                          "of the bash tool per reply.")
    (call,) = calls
    if call.name != "bash":
        raise FormatError(f"There is no tool named {call.name!r}; the only tool is bash.")
    try:
        args = json.loads(call.arguments or "", strict=False)
    except json.JSONDecodeError as exc:
        raise FormatError(f"The arguments of your bash call are not valid JSON ({exc.msg} at "
                          f'char {exc.pos}). Send {{"command": "..."}}.') from None
    # Parsed once above; a JSON string here is not unwrapped again (unlike text calls).
    command = _bash_command(call.name, args if isinstance(args, dict) else None)
    if command is None:
        raise FormatError('Your bash call needs a non-empty "command" string argument.')
    return Action(command=command, form="native")


def elide(output: str, limit: int = OBSERVATION_LIMIT) -> tuple[str, int]:
    """`output` cut to head and tail of `limit` characters in all; returns (text, elided)."""
    if len(output) <= limit:
        return output, 0
    head = limit // 2
    tail = limit - head
    elided = len(output) - limit
    marker = f"\n[... {elided} characters elided ...]\n"
    return output[:head] + marker + output[-tail:], elided


def observation_json(returncode: int | None, output: str, *, limit: int = OBSERVATION_LIMIT,
                     already_elided: int = 0, **flags: object) -> str:
    """The observation the model sees: JSON with the return code and (elided) output.

    `already_elided` > 0 says the environment capped the output itself (its marker is
    in the text): it is not cut again. `flags` (timed_out=True, ...) are added as they are.
    """
    shown, elided = (output, already_elided) if already_elided else elide(output, limit)
    row: dict[str, object] = {"returncode": returncode, "output": shown, **flags}
    if elided:
        row["elided_chars"] = elided
        row["note"] = ("The output was too long; only its head and tail are shown. "
                       "Narrow the command (grep, head, tail).")
    return json.dumps(row, ensure_ascii=False)


def is_submission(output: str) -> bool:
    """True when the command printed the finish marker alone as its first line."""
    lines = output.lstrip().splitlines()
    return bool(lines) and lines[0].strip() == FINISH_MARKER
