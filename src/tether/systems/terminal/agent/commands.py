"""What one shell command does, for the behaviour labels (`behaviours.py`).

A command (`shell_parse.split_commands`: cut at newlines, `;`, `&&`, `||`) has one or
more stages (a pipeline, `a & b`). Each stage is classified by the program it runs,
after leading `VAR=x` assignments and wrappers (`sudo`, `timeout N`, `nohup`, ...):

  read      a known read or inspect program (cat, ls, grep, sed without -i, git status,
            find without -exec/-delete, ...)
  check     a test, checker or comparison against expected output (pytest, unittest,
            make test, npm test, go test, linters, test scripts, diff, cmp)
  file_op   moves, copies, deletes, archives, changes permissions, stops processes
  install   a package manager's install
  edit      a program that only writes files (tee, patch, git apply, sed -i, dd)
  wait      sleep, wait
  git       any other git subcommand (commit, add, ...): neither a read nor running code
  run       anything else: the command runs code (python x.py, ./run.sh, make, node, ...)

`writes(stage)` lists the files a stage writes, from its redirections and its program
(redirects anywhere in a pipeline count; /tmp, /dev and /var/tmp are scratch).
Copies and moves are file operations, not edits, as the paper's examples have them.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tether.systems.terminal.agent.shell_parse import Segment

KINDS = ("read", "check", "file_op", "install", "edit", "wait", "git", "run")

_PREFIXES = {"sudo", "env", "nohup", "time", "nice", "command", "exec", "stdbuf", "xargs",
             "timeout", "builtin"}
_FILE_OPS = {"cp", "mv", "rm", "mkdir", "touch", "chmod", "chown", "ln", "rmdir", "install",
             "tar", "zip", "unzip", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz",
             "rsync", "kill", "pkill", "killall", "shred", "truncate"}
_READERS = {
    "cat", "ls", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "find", "wc",
    "pwd", "echo", "printf", "file", "stat", "tree", "which", "type", "whoami",
    "id", "printenv", "du", "df", "sort", "uniq", "cut", "awk", "sed", "jq", "cd", "true",
    "od", "xxd", "hexdump", "md5sum", "sha256sum", "sha1sum", "nl", "date", "uname", "ps",
    "history", "column", "tr", "realpath", "dirname", "basename", "readlink", "test", "[",
    "[[", "ll", "locate", "whereis", "man", "help", "strings", "comm", "pushd", "popd",
    "export", "set", "unset", "source", ".", "alias", "hostname", "free", "env", "for",
    "false", "lsof", "top", "pgrep", "nproc", "lscpu", "getconf", "read",
}  # fmt: skip
_COMPARE = {"diff", "cmp", "colordiff", "sdiff"}
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
#: waiting or monitoring programs: a turn that starts with one is never a loop
WAITERS = frozenset(("sleep", "tail", "watch", "wait"))
#: a path we know was written but not which one (python writes to computed names)
UNKNOWN_PATH = "?"


def is_scratch(path: str) -> bool:
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
class Stage:
    """One simple command with its prefixes stripped."""

    argv: list[str]
    redirects: list[tuple[str, str]]
    heredoc: str

    @classmethod
    def of(cls, seg: Segment) -> Stage:
        return cls(strip_prefixes(seg.words), seg.redirects, seg.heredoc)

    @property
    def prog(self) -> str:
        return posixpath.basename(self.argv[0]) if self.argv else ""

    @property
    def sub(self) -> str:
        return self.argv[1] if len(self.argv) > 1 else ""


def _redirect_writes(s: Stage) -> list[str]:
    return [t for op, t in s.redirects
            if (op.endswith(">") or op.endswith(">>") or op.endswith(">|"))
            and not re.fullmatch(r"\d+|-", t) and not op.endswith("<>")]


def _python_code(s: Stage) -> str | None:
    if not s.prog.startswith("python"):
        return None
    if "-c" in s.argv:
        i = s.argv.index("-c")
        return s.argv[i + 1] if i + 1 < len(s.argv) else ""
    if s.heredoc and (len(s.argv) == 1 or s.argv[1] == "-"):
        return s.heredoc
    return None


def _in_place(s: Stage) -> bool:
    return s.prog in ("sed", "perl") and any(
        x == "-i" or x.startswith(("-i", "--in-place")) or (s.prog == "perl" and
                                                           x.startswith("-pi"))
        for x in s.argv[1:])


def writes(s: Stage) -> list[str]:
    """Files this stage writes (scratch paths included; the caller filters them)."""
    paths = _redirect_writes(s)
    a, prog = s.argv, s.prog
    args = [x for x in a[1:] if not x.startswith("-")]
    if prog == "tee":
        paths += args
    elif _in_place(s):
        paths += args[1:] if prog == "sed" and not any(x in ("-e", "-f") for x in a) else [
            x for x in args if posixpath.splitext(x)[1] or "/" in x]
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


def _is_check(s: Stage) -> bool:
    a, prog = s.argv, s.prog
    if prog in _LINTERS or prog in _COMPARE:
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


def _installs(s: Stage) -> bool:
    a = s.argv
    if s.prog.startswith("python") and a[1:4] == ["-m", "pip", "install"]:
        return True
    if s.prog == "uv" and a[1:3] == ["pip", "install"]:
        return True
    return (s.prog, s.sub) in _INSTALLERS


def kind(s: Stage) -> str:
    """The stage's kind (one of KINDS), from the program it runs."""
    prog, a = s.prog, s.argv
    if _installs(s):
        return "install"
    if _is_check(s):
        return "check"
    if prog in _FILE_OPS or (prog == "find" and "-delete" in a):
        return "file_op"
    if prog in ("tee", "patch", "dd") or _in_place(s):
        return "edit"
    if prog == "git":
        if s.sub in _GIT_READS:
            return "read"
        return "edit" if writes(s) else "git"
    if prog == "find":
        return "run" if any(x in ("-exec", "-execdir", "-ok") for x in a) else "read"
    if prog in ("sleep", "wait"):
        return "wait"
    if prog.startswith("python") and a[1:2] in (["--version"], ["-V"]):
        return "read"
    if prog in _READERS or not a:
        return "read"
    return "run"
