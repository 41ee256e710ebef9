"""kill -9 in the middle of a build, then `--resume`: nothing scored is scored again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.systems.compile.compiler.conftest import toy_config
from tether.systems.compile.compiler import Compiler
from tether.systems.compile.compiler.store import BuildDir
from tether.systems.compile.harness import bare_harness

ROOT = Path(__file__).resolve().parents[4]

# Runs a compile and SIGKILLs itself on the third validation item of the first proposal
# that is not bare: mid-build, with some of that proposal's items already scored.
_KILLED = textwrap.dedent("""
    import os, signal, sys
    from tether.systems.compile.compiler import CompileConfig, Compiler
    from tether.systems.compile.harness import bare_harness
    BARE = bare_harness("toy").hash
    seen = []
    def before(split, harness_hash, item):
        if split == "validation" and harness_hash != BARE:
            seen.append(item.item_id)
            if len(seen) == 3:
                os.kill(os.getpid(), signal.SIGKILL)
    cfg = CompileConfig.model_validate_json(sys.argv[1])
    Compiler(cfg, before_item=before).run()
""")


def _finished(out: Path) -> set[tuple[str, str]]:
    return {(p.parent.name, p.name.removesuffix(".json"))
            for p in (out / "scores").glob("*/*.json")}


def test_resume_after_kill_9_rescoring_nothing(tmp_path: Path) -> None:
    out = tmp_path / "killed"
    config = toy_config(out, rounds=2, protocol="A")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", _KILLED, config.model_dump_json()],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == -9, proc.stderr
    assert not (out / "result.json").exists()
    done = _finished(out)
    assert ("validation", bare_harness("toy").hash) in done
    partial = list((out / "scores" / "validation").glob("*.partial.jsonl"))
    assert len(partial) == 1
    partial_items = {json.loads(line)["item_id"] for line in partial[0].read_text().splitlines()}
    partial_hash = partial[0].name.removesuffix(".partial.jsonl")
    assert len(partial_items) == 2  # the third item was killed before it was scored

    scored_again: list[tuple[str, str, str]] = []
    result = Compiler.resume(out, before_item=lambda s, h, i: scored_again.append(
        (s, h, i.item_id))).run()
    assert not [x for x in scored_again if (x[0], x[1]) in done]
    assert not [x for x in scored_again
                if x[0] == "validation" and x[1] == partial_hash and x[2] in partial_items]
    teacher_keys = [c["key"] for c in BuildDir(out).build(0).teacher_calls()]
    assert len(teacher_keys) == len(set(teacher_keys))

    fresh = Compiler(toy_config(tmp_path / "fresh", rounds=2, protocol="A")).run()
    assert result == fresh  # the resumed compile decided exactly as an unbroken one
