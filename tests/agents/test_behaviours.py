"""Behaviour labels on crafted commands, trajectories and selector preference."""

from __future__ import annotations

import pytest

from tether.agents.behaviours import (
    LABEL_TITLES,
    LABELS,
    LabeledTurn,
    label_command,
    label_trajectory,
    labeled_turns,
    preference_table,
    selector_preference,
    strip_prefixes,
)
from tether.agents.shell_parse import Unparseable, split_command


def test_split_at_separators_outside_quotes_only():
    segs = split_command('ls -la && cat "a;b" | grep -v \'x||y\' ; echo ok || true\nwc -l f &')
    assert [s.words for s in segs] == [["ls", "-la"], ["cat", "a;b"], ["grep", "-v", "x||y"],
                                       ["echo", "ok"], ["true"], ["wc", "-l", "f"]]


def test_heredoc_bodies_and_comments_are_removed():
    cmd = "cat > f.py <<'EOF'\nimport os; rm -rf /  # not a command\nEOF\n# rm x\npython3 f.py"
    segs = split_command(cmd)
    assert [s.words for s in segs] == [["cat"], ["python3", "f.py"]]
    assert segs[0].redirects == [(">", "f.py")]
    assert "import os" in segs[0].heredoc


def test_substitutions_do_not_split_and_keywords_are_dropped():
    segs = split_command('echo $(cat a; ls) `date; id` ${X:-a;b}\nif [ -f x ]; then make; fi')
    assert segs[0].words == ["echo", "$(cat a; ls)", "`date; id`", "${X:-a;b}"]
    assert [s.words for s in segs[1:]] == [["[", "-f", "x", "]"], ["make"]]


def test_process_substitution_and_arithmetic_are_words():
    segs = split_command("diff <(sort a) <(sort b) && echo $((1 + 2)) >&2")
    assert [s.words for s in segs] == [["diff", "<(sort a)", "<(sort b)"], ["echo", "$((1 + 2))"]]
    assert segs[1].redirects == [(">&", "2")]
    assert label_command("diff <(sort a) <(sort b)") == {"reads_only"}


@pytest.mark.parametrize("bad", ['echo "unterminated', "echo 'x", "echo $(ls", "cat >"])
def test_unterminated_shell_is_unparseable(bad):
    with pytest.raises(Unparseable):
        split_command(bad)


def test_prefixes_are_skipped():
    assert strip_prefixes(["FOO=1", "BAR=x", "sudo", "-E", "timeout", "-k", "5", "30",
                           "python3", "t.py"]) == ["python3", "t.py"]
    assert strip_prefixes(["timeout", "10s", "make"]) == ["make"]
    assert strip_prefixes(["env", "A=1", "nohup", "ls"]) == ["ls"]


@pytest.mark.parametrize("command", [
    "echo hi > /app/x.txt", "printf 'a' >> notes.md", "sed -i 's/a/b/' src/main.c",
    "sed -i.bak -e 's/a/b/' f.py", "perl -pi -e 's/a/b/' f.txt",
    "cat > f.py <<EOF\nprint(1)\nEOF", "echo x | tee out.txt", "echo x | sudo tee -a /etc/x",
    "python3 -c \"open('o.txt', 'w').write('1')\"",
    "python3 - <<'PY'\nfrom pathlib import Path\nPath('a.json').write_text('{}')\nPY",
    "cp /tmp/fixed.py /app/stats.py", "mv build/x bin/", "patch -p1 < fix.diff",
    "git apply fix.diff", "git checkout HEAD~1 -- config.ini", "dd if=/dev/zero of=disk.img",
    "FOO=1 timeout 5 sed -i s/x/y/ f",
])
def test_edits_file(command):
    assert "edits_file" in label_command(command)


@pytest.mark.parametrize("command", [
    "echo x > /tmp/scratch.py", "cat > /tmp/t.py <<EOF\nx\nEOF", "make 2>/dev/null",
    "python3 -c \"open('/tmp/o', 'w')\"", "cp a /tmp/", "sed 's/a/b/' f.py", "cat f.py",
    "grep -rn x . > /dev/null", "make 2>&1 | tail",
])
def test_scratch_writes_and_reads_are_not_edits(command):
    assert "edits_file" not in label_command(command)


@pytest.mark.parametrize("command", [
    "pytest -q tests/", "python -m pytest", "python3 -m unittest discover -s tests",
    "make test", "make check", "bash test.sh", "bash /app/tests/run.sh -n", "./run_tests.sh",
    "./test_all.sh", "npm test", "npm run test", "go test ./...", "cargo test",
    "python3 test_stats.py", "timeout 60 pytest", "sh -n build.sh", "ruff check .",
])
def test_runs_test(command):
    assert "runs_test" in label_command(command)


@pytest.mark.parametrize("command", ["python3 stats.py", "make", "ls tests", "cat test.sh"])
def test_not_a_test_run(command):
    assert "runs_test" not in label_command(command)


@pytest.mark.parametrize("command", ["cp a b", "mv a b", "rm -rf build", "mkdir -p out",
                                     "touch x", "chmod +x run.sh", "ln -s a b",
                                     "find . -name '*.o' -delete"])
def test_file_ops(command):
    assert "file_ops" in label_command(command)


@pytest.mark.parametrize("command", ["pip install numpy", "pip3 install -r req.txt",
                                     "python3 -m pip install x", "sudo apt-get install -y gcc",
                                     "apt install jq", "npm install", "yarn add left-pad"])
def test_installs_package(command):
    assert label_command(command) >= {"installs_package"}


@pytest.mark.parametrize("command", [
    "ls -la", "cat a.txt | head -5", "grep -rn TODO src | wc -l", "find . -name '*.py'",
    "cd /app && ls", "git status && git log --oneline -3", "wc -l < data.txt",
    "head -c 100 f 2>/dev/null", "sed -n 1,20p f.py", "echo $PATH",
])
def test_reads_only(command):
    assert label_command(command) == {"reads_only"}


@pytest.mark.parametrize("command", ["ls && python3 f.py", "cat x > out.txt", "ls > /tmp/l",
                                     "find . -exec rm {} +", "git commit -m x", "make"])
def test_not_reads_only(command):
    assert "reads_only" not in label_command(command)


@pytest.mark.parametrize("command", [None, "", "   \n", "echo 'oops", "cat <<EOF > x && $(ls"])
def test_cannot_run(command):
    assert label_command(command) == {"cannot_run"}


def test_tests_last_edit_follows_the_last_edited_file():
    labels = label_trajectory([
        "cat stats.py",
        "sed -i 's/a/b/' stats.py",
        "python3 -c 'import stats; print(stats.median([1, 2]))'",  # imports the module
        "cat other.txt",
        "python3 unrelated.py",
        "python3 -m unittest",  # a test run touches any edit
        "echo x > notes.md",
        "python3 stats.py",  # the last edit is notes.md now
        "make",  # a build counts
    ])
    assert ["tests_last_edit" in labs for labs in labels] == [
        False, False, True, False, False, True, False, False, True]


def test_an_edit_and_its_test_in_one_command():
    assert label_command("sed -i s/x/y/ f.py && python3 f.py") >= {"edits_file",
                                                                   "tests_last_edit"}
    assert "tests_last_edit" not in label_command("python3 f.py && sed -i s/x/y/ f.py")


def test_loops_are_repeats_since_the_last_edit():
    labels = label_trajectory([
        "python3 f.py",
        "python3  f.py",  # whitespace does not make it new
        "sed -i s/a/b/ f.py",
        "python3 f.py",  # after an edit: not a loop
        "python3 f.py",
        "sleep 2; cat out",
        "sleep 2; cat out",  # waiting is excluded
        "tail -n 5 log",
        "tail -n 5 log",
        "sed -i s/a/b/ f.py",  # repeats the edit: no other edit since it
        "echo x > other.txt",
        "sed -i s/a/b/ f.py",  # another edit came between
    ])
    assert ["loops" in labs for labs in labels] == [
        False, True, False, False, True, False, False, False, False, True, False, False]


def test_labeled_turns_label_candidates_against_the_executed_trajectory():
    records = [
        {"step": 1, "command": "sed -i s/a/b/ f.py", "selected_index": 1,
         "candidates": [{"command": "ls"}, {"command": "sed -i s/a/b/ f.py"}]},
        {"step": 2, "command": "python3 f.py", "selected_index": 0,
         "candidates": [{"command": "python3 f.py"}, {"command": None},
                        {"command": "sed -i s/a/b/ f.py"}]},
    ]
    turns = labeled_turns("t1", 0, records)
    assert turns[0].candidate_labels == [{"reads_only"}, {"edits_file"}]
    assert "tests_last_edit" in turns[1].candidate_labels[0]
    assert turns[1].candidate_labels[1] == {"cannot_run"}
    assert "loops" in turns[1].candidate_labels[2]  # repeats the edit since the edit


def _turn(task, trial, step, labels, selected):
    return LabeledTurn(task, trial, step, [frozenset(x) for x in labels], selected)


def test_selector_preference_is_pick_share_minus_uniform_share():
    turns = [
        _turn("a", 0, 1, [{"edits_file"}, set(), set(), set()], 0),  # picked 1, uniform .25
        _turn("a", 0, 2, [{"edits_file"}, {"edits_file"}], 1),  # picked 1, uniform 1
        _turn("b", 0, 1, [set(), {"edits_file"}], 0),  # picked 0, uniform .5
        _turn("b", 0, 2, [{"edits_file"}], 0),  # one candidate: no choice, skipped
    ]
    p = selector_preference(turns, "edits_file", n_resamples=2000)
    assert p.n_turns == 3 and p.n_tasks == 2
    assert p.picked_share == pytest.approx(2 / 3)
    assert p.uniform_share == pytest.approx((0.25 + 1 + 0.5) / 3)
    assert p.preference == pytest.approx(p.picked_share - p.uniform_share)
    assert p.low <= p.preference <= p.high


def test_a_uniform_picker_has_no_preference_and_an_always_picker_does():
    turns_pick, turns_avoid = [], []
    for task in range(8):
        for step in range(6):
            labels = [{"runs_test"}, set(), set(), set()]
            turns_pick.append(_turn(f"t{task}", 0, step, labels, 0))
            turns_avoid.append(_turn(f"t{task}", 0, step, labels, 1 + step % 3))
    pick = selector_preference(turns_pick, "runs_test", n_resamples=2000)
    avoid = selector_preference(turns_avoid, "runs_test", n_resamples=2000)
    assert pick.preference == pytest.approx(0.75) and pick.low > 0
    assert avoid.preference == pytest.approx(-0.25) and avoid.high < 0


def test_preference_table_and_unknown_labels():
    turns = [_turn("a", 0, 1, [{"reads_only"}, {"edits_file"}], 1)]
    table = preference_table(turns, n_resamples=200)
    assert {r.label for r in table} == {"reads_only", "edits_file"}
    assert selector_preference([], "loops") is None
    with pytest.raises(ValueError, match="unknown label"):
        selector_preference(turns, "writes_poetry")
    assert set(LABEL_TITLES) == set(LABELS)
    assert set(LABELS) >= {"edits_file", "tests_last_edit", "runs_test", "file_ops",
                           "installs_package", "reads_only", "cannot_run", "loops"}
