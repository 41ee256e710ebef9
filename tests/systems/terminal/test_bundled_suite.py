"""The bundled terminal suite's verifiers reject tempting wrong answers (not only no answer)."""

from __future__ import annotations

import pytest

from tether.systems.terminal.environment import TerminalEnvironment
from tether.systems.terminal.harbor import BUNDLED_TERMINAL, load_harbor_task

WRONG_ANSWERS = {
    # grep also matches the quoted region "north, east"
    "sum-column": "grep north sales.csv | awk -F, '{s+=$NF} END {printf \"%.2f\", s}' "
                  "> north_total.txt",
    # fast, but counts a value paired with itself (i <= j)
    "fast-pairs": "cat > pairs.py <<'EOF'\nimport sys\nfrom collections import Counter\n"
                  "vals = [int(x) for x in open(sys.argv[1]).read().split()]\nt = vals.pop(0)\n"
                  "c = Counter(vals)\nprint(sum(c[v] * c[t - v] for v in c) // 2)\nEOF",
    # quotes the variables but still word-splits the ls output
    "quote-filenames": "sed -i 's/\\$f/\"$f\"/g' wordcount.sh",
    # edits the build script instead of clearing the stale lock
    "stale-lock": "sed -i 's/if \\[ -e \"$LOCK\" \\]/if false/' build.sh && ./build.sh",
    # population variance fixed, other bugs left
    "fix-stats": "sed -i 's/(len(xs) - 1)/len(xs)/' stats.py",
    # configparser without type conversion
    "ini-to-json": "python3 -c \"import configparser, json; c = configparser.ConfigParser(); "
                   "c.read('settings.ini'); json.dump({s: dict(c[s]) for s in c.sections()}, "
                   "open('settings.json', 'w'))\"",
}


@pytest.mark.parametrize("task_id", sorted(WRONG_ANSWERS))
def test_a_tempting_wrong_answer_gets_reward_0(task_id, bwrap):  # noqa: F811
    task = load_harbor_task(BUNDLED_TERMINAL / task_id, suite="terminal")
    with TerminalEnvironment.for_task(task, sandbox=bwrap) as env:
        ran = env.execute(WRONG_ANSWERS[task_id])
        assert ran.returncode == 0, ran.output  # the wrong answer did run
        result = env.verify()
    assert result.error is None, (ran.output, result.output)
    assert result.reward == 0.0, (ran.output, result.output)
