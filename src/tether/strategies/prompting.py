"""Messages every strategy starts from, and turning a reply into the task's artifact."""

from __future__ import annotations

from tether.core import Artifact, Task, complete_program, extract_artifact
from tether.models import Completion, Message


def task_messages(task: Task) -> list[Message]:
    """The task as a conversation: its system prompt (if any) and its prompt.

    Only `task.system` and `task.prompt` reach a model; `task.data` (hidden checks,
    reference solutions) never does.
    """
    messages: list[Message] = []
    if task.system:
        messages.append({"role": "system", "content": task.system})
    messages.append({"role": "user", "content": task.prompt})
    return messages


def to_artifact(task: Task, completion: Completion) -> Artifact:
    """The artifact in a reply; raises `Truncated` when the reply was cut off before it."""
    entry = task.data.get("entry_point")
    artifact = extract_artifact(task.artifact_kind, completion.text,
                                finish_reason=completion.finish_reason, entry_point=entry)
    prefix = task.data.get("completion_prefix")
    if prefix and artifact.kind == "program":
        # completion-style suites (HumanEval): a reply giving only the body is completed
        artifact = artifact.model_copy(
            update={"text": complete_program(artifact.text, prefix, entry)})
    if entry:
        artifact.meta.setdefault("entry_point", entry)
    return artifact
