"""Behaviour labels of terminal-agent actions, by rules in code (pure functions).

The reference is the turn-level best-of-N paper's Table 4 and its appendix on rule-based
labels; the rules below restate them, and each case has a test.

Commands. A reply's command text loses its heredoc bodies and comment lines, and is cut
into commands at newlines, `;`, `&&` and `||` outside quotes (never at `|` or `&`: a
pipeline is one command). Each command is classified by the program it runs, skipping
leading `VAR=x` assignments and wrappers such as `sudo` and `timeout`
(`tether.systems.terminal.agent.commands`: read, check, file_op, install, edit, wait, git, run; a
pipeline's stages each count, and its redirections anywhere).

Labels of one candidate (a full reply of the generator):

  (none)            a submission: the command contains the finish marker
                    (`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`); it gets no label at all
  cannot_run        the harness cannot execute the reply: no tool call or bash block, a
                    malformed one, or a reply cut off at the output limit (command None)
  edits_file        a file in the workspace changes: a redirection, `tee`, `sed -i`,
                    `perl -i`, python code that opens a file for writing, `patch`,
                    `git apply`/`restore`/`checkout -- F`; writes under /tmp, /dev or
                    /var/tmp do not count; copies and moves are file operations instead
  tests_last_edit   it runs code (a `run` or `check` stage) while the latest edit is
                    untested, i.e. no turn since that edit ran or tested anything. An edit
                    earlier in the same reply counts; code that runs is taken to test what
                    it writes itself (`python gen.py > out.txt` leaves nothing untested)
  runs_test         a test, checker or comparison against expected output (pytest,
                    `make test`, test scripts, linters, `diff`, `cmp`)
  file_ops          moves, copies, deletes, archives, permissions, stopping processes
  installs_package  a package manager installs something
  reads_only        every stage of every command is a known read or inspect program and
                    nothing is written: nothing written, run, checked, installed, submitted
  loops             its command text equals, up to whitespace, that of a turn executed
                    since the last edit (the edit's own turn included), or in the whole
                    attempt when nothing was edited; a reply whose first program waits or
                    monitors (sleep, tail, watch, wait) is never a loop

A command that is not valid shell (an unterminated quote) would still be run by the
harness, so it is not `cannot_run`: it gets no command-type label (it may loop).

`label_trajectory(commands)` labels executed actions in order; `TrajectoryState` labels
candidates against the trajectory so far without changing it. `labeled_turns` leaves out
turns where every selector call failed (the paper excludes them: nobody chose there).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tether.stats import CI, N_RESAMPLES, SEED, PairedObservation, paired_bootstrap
from tether.systems.terminal.agent.actions import FINISH_MARKER
from tether.systems.terminal.agent.commands import (
    WAITERS,
    Stage,
    is_scratch,
    kind,
    strip_prefixes as strip_prefixes,
    writes,
)
from tether.systems.terminal.agent.shell_parse import Unparseable, split_commands

LABELS = ("edits_file", "tests_last_edit", "runs_test", "file_ops", "installs_package",
          "reads_only", "cannot_run", "loops")
#: how a report names each label
LABEL_TITLES = {
    "edits_file": "edits a file", "tests_last_edit": "tests its last edit",
    "runs_test": "runs a test or check", "file_ops": "file operations",
    "installs_package": "installs a package", "reads_only": "only reads or inspects",
    "cannot_run": "cannot run", "loops": "loops on a command",
}  # fmt: skip
_KIND_LABEL = {"check": "runs_test", "file_op": "file_ops", "install": "installs_package"}


@dataclass
class TrajectoryState:
    """What the labels of the next action depend on: whether the latest edit is still
    untested, and the command texts executed since the last edit."""

    edited: bool = False
    untested: bool = False
    since_edit: list[str] = field(default_factory=list)

    def label(self, command: str | None) -> set[str]:
        """Labels of `command` as the next action (the state is not changed)."""
        return self._analyse(command)[0]

    def advance(self, command: str | None) -> set[str]:
        """Label `command` as the next executed action and record it."""
        labels, untested = self._analyse(command)
        key = _normalise(command)
        self.untested = untested
        if "edits_file" in labels:
            self.edited, self.since_edit = True, [key]
        elif key:
            self.since_edit.append(key)
        return labels

    def _analyse(self, command: str | None) -> tuple[set[str], bool]:
        if command is None or not command.strip():
            return {"cannot_run"}, self.untested
        if FINISH_MARKER in command:
            return set(), self.untested
        labels: set[str] = set()
        untested = self.untested
        try:
            commands = [[Stage.of(seg) for seg in c.stages] for c in split_commands(command)]
        except Unparseable:
            commands = []
        stages = [s for c in commands for s in c if s.argv or s.redirects]
        reads_only = bool(stages)
        for s in stages:
            k = kind(s)
            edits = [p for p in writes(s) if not is_scratch(p)]
            if k in _KIND_LABEL:
                labels.add(_KIND_LABEL[k])
            if k in ("run", "check"):
                if untested:
                    labels.add("tests_last_edit")
                untested = False  # what it writes is its own output, run by now
            elif edits:
                untested = True
            if edits:
                labels.add("edits_file")
            if k != "read" or any(not p.startswith("/dev/") for p in writes(s)):
                reads_only = False
        if reads_only:
            labels.add("reads_only")
        first = stages[0].prog if stages else ""
        if _normalise(command) in self.since_edit and first not in WAITERS:
            labels.add("loops")
        return labels, untested


def _normalise(command: str | None) -> str:
    return " ".join((command or "").split())


def label_command(command: str | None) -> set[str]:
    """Labels of one action on its own (no trajectory: no loops, no earlier edit)."""
    return TrajectoryState().label(command)


def label_trajectory(commands: Iterable[str | None]) -> list[set[str]]:
    """Labels of each executed action, in order (None = a reply that could not run)."""
    state = TrajectoryState()
    return [state.advance(c) for c in commands]


# -- selector preference -------------------------------------------------------------


@dataclass(frozen=True)
class LabeledTurn:
    """One turn with a choice: the labels of each candidate and the index picked.

    `trial` tells the turns of one task apart (a seed or trial id); `step` is the turn.
    """

    task: str
    trial: int | str
    step: int
    candidate_labels: Sequence[frozenset[str] | set[str]]
    selected: int


@dataclass(frozen=True)
class Preference:
    """How much more often the selector picks a label than a uniform pick would.

    picked_share: share of turns whose pick has the label; uniform_share: the mean over
    turns of the fraction of candidates with it; preference = picked - uniform, with a
    paired bootstrap CI over tasks (turns nested in tasks).
    """

    label: str
    picked_share: float
    uniform_share: float
    preference: float
    low: float
    high: float
    n_turns: int
    n_tasks: int


def labeled_turns(task: str, trial: int | str,
                  turn_records: Sequence[Mapping[str, Any]]) -> list[LabeledTurn]:
    """LabeledTurns from an agent's turn records (`Turn.to_json()`: "candidates" with
    "command", "selected_index", executed "command"). Candidates are labelled against
    the executed trajectory before their turn. A turn where every selector call failed
    is left out (its pick is the fallback, not a choice) but still advances the state."""
    state = TrajectoryState()
    out: list[LabeledTurn] = []
    for i, rec in enumerate(turn_records):
        cands = rec.get("candidates") or []
        assert isinstance(cands, list)
        if not rec.get("selector_failed"):
            labels = [frozenset(state.label(c.get("command"))) for c in cands]
            out.append(LabeledTurn(task, trial, int(rec.get("step", i)),
                                   labels, int(rec.get("selected_index", 0))))
        if rec.get("command") is not None:
            state.advance(rec.get("command"))
    return out


def selector_preference(turns: Sequence[LabeledTurn], label: str, *,
                        n_resamples: int = N_RESAMPLES, seed: int = SEED,
                        ci: float = CI) -> Preference | None:
    """Preference for `label` over turns with at least two candidates (None if none)."""
    if label not in LABELS:
        raise ValueError(f"unknown label {label!r}; labels are {', '.join(LABELS)}")
    records = []
    for t in turns:
        if len(t.candidate_labels) < 2:
            continue  # no choice was made: nothing to prefer
        uniform = sum(label in c for c in t.candidate_labels) / len(t.candidate_labels)
        picked = float(label in t.candidate_labels[t.selected])
        records.append(PairedObservation(task=t.task, seed=f"{t.trial}:{t.step}",
                                         a=uniform, b=picked))
    if not records:
        return None
    boot = paired_bootstrap(records, "mean_diff", n_resamples=n_resamples, seed=seed, ci=ci)
    n = len(records)
    return Preference(label=label, picked_share=sum(r.b for r in records) / n,
                      uniform_share=sum(r.a for r in records) / n, preference=boot.estimate,
                      low=boot.low, high=boot.high, n_turns=n, n_tasks=boot.n_tasks)


def preference_table(turns: Sequence[LabeledTurn], labels: Sequence[str] = LABELS,
                     **kwargs: object) -> list[Preference]:
    """selector_preference for each label that any candidate has."""
    # kwargs are selector_preference's own keywords, passed through unchanged
    rows = [selector_preference(turns, lab, **kwargs) for lab in labels]  # type: ignore[arg-type]
    return [r for r in rows if r is not None and (r.picked_share or r.uniform_share)]
