"""The runtime manual states the numbers and names the code enforces."""

from tether.systems.compile.admissibility import (
    MAX_HOOK_CHARS,
    MAX_PROMPT_CHARS,
    MAX_TOKENS,
    SMOKE_ITEMS,
)
from tether.systems.compile.hook_ast import ALLOWED_IMPORTS, FORBIDDEN_NAMES, SIGNATURES
from tether.systems.compile.manual import runtime_manual
from tether.systems.compile.runtime import DEFAULT_HOOK_DEADLINE_S, MAX_STEPS


def test_the_manual_matches_the_code():
    text = runtime_manual()
    assert text.startswith("# tether harness runtime, version 1")
    assert all(f"`{m}" in text or f" {m}," in text or f"{m}`" in text for m in ALLOWED_IMPORTS)
    assert all(name in text for name in FORBIDDEN_NAMES)
    for hook, params in SIGNATURES.items():
        assert f"def {hook}({', '.join(params)})" in text
    assert f"{MAX_PROMPT_CHARS:,} characters" in text and f"{MAX_HOOK_CHARS:,} characters" in text
    assert f"at most {MAX_TOKENS:,}" in text
    assert f"At most {MAX_STEPS} student calls" in text
    assert f"{DEFAULT_HOOK_DEADLINE_S:.0f} seconds per call" in text
    assert f"smoke run on {SMOKE_ITEMS} practice items" in text
    for key in ('"call_student"', '"done"', '"verdict"', '"abstain"'):
        assert key in text
