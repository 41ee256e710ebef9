"""Harbor task dirs with Dockerfiles -> imported tether tasks (behind `tether tasks import`).

Per task: classify (`convert.classify_task`), build or reuse its image
(`images.ImageBuilder`, cached by recipe hash), write the imported task dir
(`imported.write_imported_task`). A build failure is that task's row, not the end of
the import: the rest go on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tether.errors import TetherError
from tether.systems.terminal.convert import Classification, classify_task
from tether.systems.terminal.images import ImageBuilder, image_spec
from tether.systems.terminal.imported import ImageRef, write_imported_task


@dataclass(frozen=True)
class ImportRow:
    """One task's import: status is convertible / refused / built / cached / failed."""

    task: str
    status: str
    base: str
    suite: str | None
    image: str | None
    reason: str
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        return {"task": self.task, "status": self.status, "base": self.base,
                "suite": self.suite, "image": self.image, "reason": self.reason,
                "seconds": round(self.seconds, 1)}


def classify_all(task_dirs: Sequence[Path], *, allow_heavy: bool = False) -> list[Classification]:
    return [classify_task(d, allow_heavy=allow_heavy) for d in task_dirs]


def dry_run_row(c: Classification) -> ImportRow:
    image = image_spec(c).key if c.convertible else None
    reason = c.reason() if not c.convertible else "; ".join(c.notes)
    return ImportRow(c.task, "convertible" if c.convertible else "refused", c.base,
                     c.suite, image, reason)


def import_task(c: Classification, out: Path, builder: ImageBuilder) -> ImportRow:
    """Build (or reuse) the image of one classified task and write its imported dir."""
    if not c.convertible:
        return dry_run_row(c)
    start = time.monotonic()
    spec = image_spec(c)
    cached = builder.cached(spec) is not None
    try:
        image = builder.build(spec, c.task_dir / "environment", disk_mb=c.build_disk_mb)
    except (TetherError, OSError) as exc:
        return ImportRow(c.task, "failed", c.base, c.suite, spec.key,
                         f"{type(exc).__name__}: {exc}", time.monotonic() - start)
    assert c.verifier is not None and c.suite is not None
    ref = ImageRef(key=image.key, image_dir=image.path, suite=c.suite, base=c.base,
                   env=image.env, workdir=image.workdir, notes=tuple(c.notes))
    write_imported_task(c.task_dir, out, ref, c.verifier.script, image.app)
    return ImportRow(c.task, "cached" if cached else "built", c.base, c.suite, image.key,
                     "; ".join(c.notes), time.monotonic() - start)


def import_tasks(classified: Sequence[Classification], out: Path, builder: ImageBuilder,
                 on_row: Callable[[ImportRow], None] | None = None) -> list[ImportRow]:
    """Import each task in turn (builds are heavy: one at a time)."""
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for c in classified:
        row = import_task(c, out, builder)
        if on_row is not None:
            on_row(row)
        rows.append(row)
    return rows
