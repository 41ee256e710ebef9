import json
import shutil

import pytest
from click.testing import CliRunner

from tether.cli import main

GOOD = json.dumps(["```python\ndef add(a, b):\n    return a + b\n```"])
BAD = json.dumps(["```python\ndef add(a, b):\n    return a - b\n```"])


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
@pytest.mark.parametrize("script, verdict", [(GOOD, "PASSED"), (BAD, "FAILED")])
def test_demo_verdict_comes_from_sandboxed_checks(script, verdict):
    res = CliRunner().invoke(main, ["demo", "--model", f"scripted:{script}"])
    assert res.exit_code == 0, res.output
    assert f"grounded verdict from the checks: {verdict}" in " ".join(res.output.split())
