"""What a terminal command sees and gives back: its environment variables, its working
directory, and its result with output capped to head and tail."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from tether.systems.terminal.spec import TerminalSpec

# git refuses to commit without an identity; HOME is /app, so no global config exists.
BASE_ENV = {
    "GIT_AUTHOR_NAME": "agent", "GIT_AUTHOR_EMAIL": "agent@sandbox",
    "GIT_COMMITTER_NAME": "agent", "GIT_COMMITTER_EMAIL": "agent@sandbox",
    "PYTHONDONTWRITEBYTECODE": "1",
}  # fmt: skip


@dataclass(frozen=True)
class CommandResult:
    """One executed command: stdout and stderr merged, head+tail capped."""

    command: str
    returncode: int | None
    output: str
    output_elided: int
    timed_out: bool
    killed_reason: str | None
    duration_s: float

    def to_json(self) -> dict[str, object]:
        """What an agent is shown: return code and output (timeouts say so)."""
        out: dict[str, object] = {"returncode": self.returncode, "output": self.output}
        if self.timed_out:
            out["timed_out"] = True
        elif self.killed_reason:
            out["killed"] = self.killed_reason
        return out


def cap_output(text: str, limit: int, already_elided: int = 0) -> tuple[str, int]:
    """Head and tail of text within `limit` chars; the marker counts every dropped char.

    `already_elided` > 0 means text is the sandbox's own head+tail (with its marker):
    its halves are cut further and the count covers both cuts.
    """
    half = limit // 2
    if already_elided:
        head, sep, tail = text.partition(f"\n... [{already_elided} characters elided] ...\n")
        if not sep or (len(head) <= half and len(tail) <= half):
            return text, already_elided
        head, tail = head[:half], tail[-half:] if half else ""
        elided = len(text) - len(sep) - len(head) - len(tail) + already_elided
        return f"{head}\n... [{elided} characters elided] ...\n{tail}", elided
    if len(text) <= limit:
        return text, 0
    elided = len(text) - 2 * half
    return f"{text[:half]}\n... [{elided} characters elided] ...\n{text[len(text) - half:]}", elided


def command_env(spec: TerminalSpec) -> dict[str, str]:
    """The environment of every command: ours, then the image's ENV (PATH included)."""
    return {**BASE_ENV, **spec.image_env}


def workdir_prefix(spec: TerminalSpec) -> str:
    """`cd WORKDIR` when an image's WORKDIR is below the writable dir (Docker starts
    commands there); a WORKDIR the agent may have deleted is not an error."""
    wd, top = (spec.workdir or "").rstrip("/"), spec.writable_dir
    if not wd.startswith(top + "/"):
        return ""
    return f"cd {shlex.quote(wd)} 2>/dev/null\n"
