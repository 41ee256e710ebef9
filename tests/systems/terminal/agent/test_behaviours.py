"""Behaviour labels on crafted commands, trajectories and selector preference."""

from __future__ import annotations

import pytest

from tether.systems.terminal.agent.behaviours import (
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
from tether.systems.terminal.agent.shell_parse import Unparseable, split_command, split_commands


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
    # a comparison against expected output is a check, not a read
    assert label_command("diff <(sort a) <(sort b)") == {"runs_test"}


def test_commands_are_cut_where_the_paper_cuts_only():
    cmds = split_commands("python solve.py | tail -5 && ls; sleep 1 & make\nA=1 sudo x || y")
    assert [[s.words for s in c.stages] for c in cmds] == [
        [["python", "solve.py"], ["tail", "-5"]], [["ls"]], [["sleep", "1"], ["make"]],
        [["A=1", "sudo", "x"]], [["y"]]]


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
    "patch -p1 < fix.diff", "python3 gen.py > out.txt",
    "git apply fix.diff", "git checkout HEAD~1 -- config.ini", "dd if=/dev/zero of=disk.img",
    "FOO=1 timeout 5 sed -i s/x/y/ f",
])
def test_edits_file(command):
    assert "edits_file" in label_command(command)


@pytest.mark.parametrize("command", [
    "echo x > /tmp/scratch.py", "cat > /tmp/t.py <<EOF\nx\nEOF", "make 2>/dev/null",
    "python3 -c \"open('/tmp/o', 'w')\"", "cp a /tmp/", "sed 's/a/b/' f.py", "cat f.py",
    "grep -rn x . > /dev/null", "make 2>&1 | tail", "cp /tmp/fixed.py /app/stats.py",
    "mv build/x bin/",
])
def test_scratch_writes_and_reads_are_not_edits(command):
    assert "edits_file" not in label_command(command)


@pytest.mark.parametrize("command", [
    "pytest -q tests/", "python -m pytest", "python3 -m unittest discover -s tests",
    "make test", "make check", "bash test.sh", "bash /app/tests/run.sh -n", "./run_tests.sh",
    "./test_all.sh", "npm test", "npm run test", "go test ./...", "cargo test",
    "python3 test_stats.py", "timeout 60 pytest", "sh -n build.sh", "ruff check .",
    "diff -u out.txt expected.txt", "cmp a b", "python3 solve.py | diff - expected.txt",
])
def test_runs_test(command):
    assert "runs_test" in label_command(command)


@pytest.mark.parametrize("command", ["python3 stats.py", "make", "ls tests", "cat test.sh"])
def test_not_a_test_run(command):
    assert "runs_test" not in label_command(command)


@pytest.mark.parametrize("command", ["cp a b", "mv a b", "rm -rf build", "mkdir -p out",
                                     "touch x", "chmod +x run.sh", "ln -s a b",
                                     "find . -name '*.o' -delete", "cp out.txt /app/",
                                     "tar czf out.tgz src", "pkill -f server.py"])
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


@pytest.mark.parametrize("command", [None, "", "   \n"])
def test_cannot_run(command):
    assert label_command(command) == {"cannot_run"}


@pytest.mark.parametrize("command", ["echo 'oops", "cat <<EOF > x && $(ls"])
def test_invalid_shell_still_runs_so_it_is_not_cannot_run(command):
    assert label_command(command) == set()


@pytest.mark.parametrize("command", [
    "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
    "cat out.txt && echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
    "sed -i s/a/b/ f.py; echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
])
def test_a_submission_gets_no_label(command):
    assert label_command(command) == set()
    assert label_trajectory(["sed -i s/a/b/ f.py", command, command])[1:] == [set(), set()]


def test_tests_last_edit_fires_once_per_untested_edit():
    labels = label_trajectory([
        "cat app.py",
        "sed -i 's/a/b/' app.py",
        "./run.sh",  # runs code while the edit of app.py is untested
        "./run.sh",  # the edit was tested by the turn before
        "python3 other.py",
        "cat other.txt",
        "echo x > notes.md",
        "cat notes.md",  # reading tests nothing: the edit stays untested
        "python3 -m unittest",
        "make",
    ])
    assert ["tests_last_edit" in labs for labs in labels] == [
        False, False, True, False, False, False, False, False, True, False]


def test_code_that_writes_its_own_output_leaves_nothing_untested():
    labels = label_trajectory(["sed -i s/x/y/ gen.py", "python3 gen.py > out.txt",
                               "python3 gen.py > out.txt"])
    assert "tests_last_edit" in labels[1] and "edits_file" in labels[1]
    assert "tests_last_edit" not in labels[2] and "loops" in labels[2]


def test_a_pipeline_into_tail_is_a_loop_only_a_turn_starting_with_tail_is_not():
    labels = label_trajectory(["python solve.py | tail -5"] * 3)
    assert ["loops" in labs for labs in labels] == [False, True, True]
    assert ["loops" in labs for labs in label_trajectory(["tail -5 log | grep x"] * 2)] == [
        False, False]


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


def test_turns_where_every_selector_call_failed_are_left_out_but_still_advance():
    records = [
        {"step": 1, "command": "sed -i s/a/b/ f.py", "selected_index": 0, "selector_failed": True,
         "candidates": [{"command": "sed -i s/a/b/ f.py"}, {"command": "ls"}]},
        {"step": 2, "command": "python3 f.py", "selected_index": 1,
         "candidates": [{"command": "ls"}, {"command": "python3 f.py"}]},
    ]
    (turn,) = labeled_turns("t1", 0, records)
    assert turn.step == 2 and "tests_last_edit" in turn.candidate_labels[1]
