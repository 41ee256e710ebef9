"""Behaviour labels of terminal-agent actions, by rules in code (pure functions).

A command is split into simple commands (`shell_parse`: newlines, `;`, `&&`, `||`,
`|`, `&` outside quotes; heredoc bodies and comments removed); `VAR=x`, `sudo`,
`timeout N` and similar prefixes are skipped. Labels of one action:

  edits_file        writes a file outside /tmp and /dev: `>`/`>>` redirections, `tee`,
                    `sed -i`/`perl -i`, python -c or a python heredoc that opens a file
                    for writing, `cp`/`mv`/`install`/`dd of=` into place, `patch`,
                    `git apply`/`git checkout -- F`/`git restore`
  tests_last_edit   after an edit (earlier in this action or in an earlier one), runs a
                    program that names the last edited file (path, basename or module
                    stem), or a test, check or build
  runs_test         a test runner or check: pytest, `python -m unittest`, `make test`,
                    `bash test*.sh`, `./run_tests...`, `npm test`, `go test`, linters ...
  file_ops          cp, mv, rm, mkdir, touch, chmod, chown, ln, rmdir, install
  installs_package  pip/apt/npm/... install
  reads_only        every simple command only reads or inspects (cat, ls, grep, ...)
  cannot_run        no command (an unparseable reply) or not valid shell
  loops             (trajectory) the same command text as an action since the last edit
                    (that edit included); commands running sleep or tail are excluded

`label_trajectory(commands)` labels executed actions in order; `TrajectoryState`
labels candidates against the trajectory so far without changing it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .shell_parse import Unparseable, split_command

LABELS = ("edits_file", "tests_last_edit", "runs_test", "file_ops", "installs_package",
          "reads_only", "cannot_run", "loops")
#: how a report names each label
LABEL_TITLES = {
    "edits_file": "edits a file", "tests_last_edit": "tests its last edit",
    "runs_test": "runs a test or check", "file_ops": "file operations",
    "installs_package": "installs a package", "reads_only": "only reads or inspects",
    "cannot_run": "cannot run", "loops": "loops on a command",
}  # fmt: skip

_PREFIXES = {"sudo", "env", "nohup", "time", "nice", "command", "exec", "stdbuf", "xargs",
             "timeout", "builtin"}
_FILE_OPS = {"cp", "mv", "rm", "mkdir", "touch", "chmod", "chown", "ln", "rmdir", "install"}
_READERS = {
    "cat", "ls", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "find", "wc",
    "pwd", "echo", "printf", "file", "stat", "tree", "diff", "cmp", "which", "type", "whoami",
    "id", "printenv", "du", "df", "sort", "uniq", "cut", "awk", "sed", "jq", "cd", "true",
    "od", "xxd", "hexdump", "md5sum", "sha256sum", "sha1sum", "nl", "date", "uname", "ps",
    "history", "column", "tr", "realpath", "dirname", "basename", "readlink", "test", "[",
    "[[", "ll", "locate", "whereis", "man", "help", "strings", "comm", "pushd", "popd",
    "export", "set", "unset", "source", ".", "alias", "hostname", "free", "env",
}  # fmt: skip
_GIT_READS = {"status", "log", "diff", "show", "branch", "rev-parse", "ls-files", "blame",
              "remote", "describe", "shortlog", "reflog", "grep", "config"}
_INSTALLERS = {("pip", "install"), ("pip3", "install"), ("apt", "install"),
               ("apt-get", "install"), ("npm", "install"), ("npm", "i"), ("yarn", "add"),
               ("pnpm", "add"), ("pnpm", "install"), ("conda", "install"), ("gem", "install"),
               ("cargo", "install"), ("go", "install"), ("go", "get"), ("poetry", "add"),
               ("uv", "add"), ("apk", "add"), ("dnf", "install"), ("yum", "install"),
               ("brew", "install")}
_LINTERS = {"pytest", "py.test", "tox", "nox", "shellcheck", "ruff", "flake8", "mypy",
            "pylint", "ctest", "bats", "unittest"}
_TEST_NAME = re.compile(r"(^|/)(run_?tests?|tests?)([._-]\w*)*(\.sh|\.py)?$|(^|/)test_\w+\.py$"
                        r"|_test\.(py|sh)$")
_PY_WRITE = re.compile(
    r"""open\(\s*(?:[rf]?(['"])(?P<path>[^'"]+)\1|[^,()]+)\s*,\s*[rbf]?(['"])[^'"]*[wax+]"""
    r"""|(?:Path\(\s*(['"])(?P<path2>[^'"]+)\4\s*\))?\.write_(?:text|bytes)\(""")
_SCRATCH = ("/tmp/", "/dev/", "/var/tmp/")
#: a path we know was written but not which one (python writes to computed names)
UNKNOWN_PATH = "?"


def _is_scratch(path: str) -> bool:
    p = posixpath.normpath(path) + ("/" if path.endswith("/") else "")
    return p in ("/tmp", "/dev/null") or any(p.startswith(s) for s in _SCRATCH)


def strip_prefixes(words: Sequence[str]) -> list[str]:
    """The command words without VAR=x assignments and wrappers (sudo, timeout N, ...)."""
    w = list(words)
    while w:
        head = w[0]
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", head):
            w.pop(0)
        elif head in _PREFIXES:
            w.pop(0)
            while w and w[0].startswith("-"):  # wrapper options, and their values
                opt = w.pop(0)
                if opt in ("-u", "-g", "-k", "-s", "-n", "-o", "-e", "-i", "-I") and w:
                    w.pop(0)
            if head == "timeout" and w and re.match(r"^\d+(\.\d+)?[smhd]?$", w[0]):
                w.pop(0)
        else:
            break
    return w


@dataclass(frozen=True)
class _Simple:
    argv: list[str]
    redirects: list[tuple[str, str]]
    heredoc: str

    @property
    def prog(self) -> str:
        return posixpath.basename(self.argv[0]) if self.argv else ""

    @property
    def sub(self) -> str:
        return self.argv[1] if len(self.argv) > 1 else ""


def _simples(command: str) -> list[_Simple]:
    out = []
    for seg in split_command(command):
        argv = strip_prefixes(seg.words)
        out.append(_Simple(argv, seg.redirects, seg.heredoc))
    return out


def _redirect_writes(s: _Simple) -> list[str]:
    return [t for op, t in s.redirects
            if (op.endswith(">") or op.endswith(">>") or op.endswith(">|"))
            and not re.fullmatch(r"\d+|-", t) and not op.endswith("<>")]


def _python_code(s: _Simple) -> str | None:
    if not s.prog.startswith("python"):
        return None
    if "-c" in s.argv:
        i = s.argv.index("-c")
        return s.argv[i + 1] if i + 1 < len(s.argv) else ""
    if s.heredoc and (len(s.argv) == 1 or s.argv[1] == "-"):
        return s.heredoc
    return None


def written_paths(s: _Simple) -> list[str]:
    """Files this simple command writes (scratch paths included; filtered by the caller)."""
    paths = _redirect_writes(s)
    a, prog = s.argv, s.prog
    args = [x for x in a[1:] if not x.startswith("-")]
    if prog == "tee":
        paths += args
    elif prog in ("sed", "perl") and any(x == "-i" or x.startswith(("-i", "--in-place"))
                                         or (prog == "perl" and x.startswith("-pi"))
                                         for x in a[1:]):
        paths += args[1:] if prog == "sed" and not any(x in ("-e", "-f") for x in a) else [
            x for x in args if posixpath.splitext(x)[1] or "/" in x]
    elif prog in ("cp", "mv", "install") and len(args) >= 2:
        dest = args[-1]
        paths.append(dest if len(args) == 2 else dest.rstrip("/") + "/")
    elif prog == "dd":
        paths += [x[3:] for x in a if x.startswith("of=")]
    elif prog == "patch":
        paths += args or [UNKNOWN_PATH]
    elif prog == "git" and (s.sub in ("apply", "restore", "am", "cherry-pick", "revert")
                            or (s.sub == "checkout" and "--" in a)):
        tail = a[a.index("--") + 1 :] if "--" in a else []
        paths += tail or [UNKNOWN_PATH]
    code = _python_code(s)
    if code:
        for m in _PY_WRITE.finditer(code):
            paths.append(m.group("path") or m.group("path2") or UNKNOWN_PATH)
    return paths


def _runs_test(s: _Simple) -> bool:
    a, prog = s.argv, s.prog
    if prog in _LINTERS:
        return True
    if prog.startswith("python") and "-m" in a:
        mod = a[a.index("-m") + 1] if a.index("-m") + 1 < len(a) else ""
        return mod in ("pytest", "unittest", "doctest", "py_compile", "compileall", "mypy",
                       "ruff", "flake8", "pylint")
    if prog == "make" and any(t in ("test", "tests", "check") for t in a[1:]):
        return True
    if prog in ("npm", "yarn", "pnpm") and ("test" in a[1:2] or a[1:3] == ["run", "test"]):
        return True
    if prog in ("go", "cargo") and s.sub == "test":
        return True
    if prog in ("bash", "sh") and ("-n" in a[1:] or any(_TEST_NAME.search(x) for x in a[1:])):
        return True
    if prog.startswith("python") and any(_TEST_NAME.search(x) for x in a[1:2]):
        return True
    return bool(_TEST_NAME.search(a[0])) if a and "/" in a[0] else False


def _installs(s: _Simple) -> bool:
    a = s.argv
    if s.prog.startswith("python") and a[1:4] in (["-m", "pip", "install"],):
        return True
    if s.prog == "uv" and a[1:3] == ["pip", "install"]:
        return True
    return (s.prog, s.sub) in _INSTALLERS


def _reads_only(s: _Simple) -> bool:
    if not all(p.startswith("/dev/") for p in _redirect_writes(s)):
        return False
    if s.prog == "git":
        return s.sub in _GIT_READS
    if s.prog == "find":
        return not any(x in ("-delete", "-exec", "-execdir", "-ok") for x in s.argv)
    if s.prog == "sed":
        return not written_paths(s)
    if s.prog in ("python", "python3") and s.argv[1:2] in (["--version"], ["-V"]):
        return True
    return s.prog in _READERS or s.prog == "for" or not s.argv


def _mentions(s: _Simple, path: str) -> bool:
    if path == UNKNOWN_PATH:
        return False
    base = posixpath.basename(path.rstrip("/"))
    stem = posixpath.splitext(base)[0]
    text = " ".join(s.argv) + " " + s.heredoc
    if path in text or (base and re.search(rf"(^|[\s/'\"=]){re.escape(base)}\b", text)):
        return True
    return bool(stem) and base.endswith(".py") and bool(
        re.search(rf"(-m\s+|import\s+|from\s+){re.escape(stem)}\b", text))


@dataclass
class TrajectoryState:
    """What the labels of the next action depend on: the last edit and the commands since."""

    last_edited: str | None = None
    since_edit: list[str] = field(default_factory=list)

    def label(self, command: str | None) -> set[str]:
        """Labels of `command` as the next action (the state is not changed)."""
        return self._analyse(command)[0]

    def advance(self, command: str | None) -> set[str]:
        """Label `command` as the next executed action and record it."""
        labels, last = self._analyse(command)
        key = _normalise(command)
        if "edits_file" in labels:
            self.last_edited, self.since_edit = last, [key]
        elif key:
            self.since_edit.append(key)
        return labels

    def _analyse(self, command: str | None) -> tuple[set[str], str | None]:
        if command is None or not command.strip():
            return {"cannot_run"}, self.last_edited
        try:
            simples = [s for s in _simples(command) if s.argv or s.redirects]
        except Unparseable:
            return {"cannot_run"}, self.last_edited
        labels: set[str] = set()
        last = self.last_edited
        for s in simples:
            edits = [p for p in written_paths(s) if not _is_scratch(p)]
            if s.prog in _FILE_OPS or (s.prog == "find" and "-delete" in s.argv):
                labels.add("file_ops")
            if _installs(s):
                labels.add("installs_package")
            test = _runs_test(s)
            if test:
                labels.add("runs_test")
            executes = not edits and not _reads_only(s) and s.prog not in _FILE_OPS
            if last is not None and executes and (test or s.prog == "make"
                                                  or _mentions(s, last)):
                labels.add("tests_last_edit")
            if edits:
                labels.add("edits_file")
                last = edits[-1]
        if simples and all(_reads_only(s) for s in simples):
            labels.add("reads_only")
        key = _normalise(command)
        if key in self.since_edit and not any(s.prog in ("sleep", "tail") for s in simples):
            labels.add("loops")
        return labels, last


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
                  turn_records: Sequence[dict[str, object]]) -> list[LabeledTurn]:
    """LabeledTurns from an agent's turn records (`Turn.to_json()`: "candidates" with
    "command", "selected_index", executed "command"). Candidates are labelled against
    the executed trajectory before their turn."""
    state = TrajectoryState()
    out: list[LabeledTurn] = []
    for i, rec in enumerate(turn_records):
        cands = rec.get("candidates") or []
        assert isinstance(cands, list)
        labels = [frozenset(state.label(c.get("command"))) for c in cands]
        out.append(LabeledTurn(task, trial, int(rec.get("step", i)),  # type: ignore[arg-type]
                               labels, int(rec.get("selected_index", 0))))  # type: ignore[arg-type]
        if rec.get("command") is not None:
            state.advance(rec.get("command"))  # type: ignore[arg-type]
    return out


def selector_preference(turns: Sequence[LabeledTurn], label: str, *, n_resamples: int = 10_000,
                        seed: int = 0, ci: float = 0.95) -> Preference | None:
    """Preference for `label` over turns with at least two candidates (None if none)."""
    from tether.stats import PairedObservation, paired_bootstrap

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
    rows = [selector_preference(turns, lab, **kwargs) for lab in labels]  # type: ignore[arg-type]
    return [r for r in rows if r is not None and (r.picked_share or r.uniform_share)]
