"""Constant folding finds answers hidden in constant expressions, within bounds."""

from __future__ import annotations

import pytest

from tether.systems.compile.answer_audit import _literals as hook_texts, audit_texts
from tether.systems.compile.constant_fold import folded_values


@pytest.mark.parametrize("expr", [
    '"siraP"[::-1]', '"Par" + "is"', '"".join(["Pa", "ris"])', '"".join(reversed("siraP"))',
    'chr(80) + "aris"', '"PARIS".title()', 'f"{a}{b}"'])
def test_reversed_joined_and_built_strings_fold_to_the_answer(expr):
    source = f"a = 'Pa'\nb = 'ris'\ndef parse(text, item):\n    return {expr}\n"
    found = audit_texts(hook_texts(source), {"Paris": "inventory"}, exempt=[])
    assert found and "paris" in found[0]


def test_numbers_fold_into_strings():
    values = [t for _, t in folded_values("def parse(t, i):\n    return 'R-' + str(23550+1)\n")]
    assert "R-23551" in values


@pytest.mark.parametrize("expr", ['"x" * 10**9', '10 ** 10 ** 10', '"%*d" % (10**9, 1)',
                                  '"{:>999999999}".format(1)', '"a" * 1000 * 1000'])
def test_hostile_expressions_are_not_evaluated(expr):
    assert all(len(t) <= 10_000 for _, t in folded_values(f"x = {expr}\n"))
