"""Split a shell command into simple commands, for behaviour labels (not for running).

It understands enough of bash to label what an agent does: quotes, escapes, `$(...)`,
backticks, `${...}`, comments, line continuations, heredocs (their bodies are taken
out of the command and kept with the simple command they feed), redirections, and the
separators outside quotes. Grouping characters and compound-command keywords (`if`,
`then`, `do`, ...) are dropped from the front of a simple command. Unterminated quotes
or substitutions raise `Unparseable`.

Two levels, because the behaviour rules split where the turn-level best-of-N paper
splits: `split_commands` cuts at newlines, `;`, `&&` and `||` only (a pipeline or a
backgrounded `a & b` stays one command, its stages kept in order); `split_command`
returns every simple command (pipeline stages and `&` cut too).

Hand-written rather than bashlex, which raises on constructs agents write every day:
arithmetic expansion `$((1 + 2))`, `case` patterns, `[[ ... ]]`, and a heredoc whose
delimiter is quoted (`cat > f.py <<'EOF'`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SEPARATORS = ("&&", "||", ";;", ";", "|&", "|", "&", "\n", "(", ")")
#: separators that end a command (the others only end a stage of it)
COMMAND_SEPARATORS = frozenset(("&&", "||", ";;", ";", "\n"))
_REDIRECT = re.compile(r"(\d*|&)(>>|>\||>&|>|<<<|<<-|<<|<>|<&|<)")
_KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{",
             "}", "esac", "in"}


class Unparseable(ValueError):
    """The command is not valid shell (unterminated quote or substitution)."""


@dataclass
class Segment:
    """One simple command: its words (quotes removed), redirections and heredoc input."""

    words: list[str] = field(default_factory=list)
    redirects: list[tuple[str, str]] = field(default_factory=list)
    heredoc: str = ""
    text: str = ""
    #: which command (cut at newline, `;`, `&&`, `||`) this simple command belongs to
    command: int = 0


@dataclass
class Command:
    """One command as the behaviour rules count it: its stages (a pipeline, or `a & b`)."""

    stages: list[Segment]


@dataclass
class _Pending:
    delimiter: str
    strip_tabs: bool
    segment: Segment


class _Lexer:
    def __init__(self, src: str) -> None:
        self.s = src
        self.i = 0
        self.segments: list[Segment] = []
        self.cur = Segment()
        self.start = 0
        self.pending: list[_Pending] = []
        self.redirect_op: str | None = None
        self.command = 0

    # -- words ---------------------------------------------------------------------
    def _balanced(self, i: int, open_: str, close: str) -> int:
        """Index just past the `close` matching the `open_` before i (quotes respected)."""
        depth = 1
        while i < len(self.s):
            c = self.s[i]
            if c == "\\":
                i += 2
                continue
            if c in "'\"`":
                i = self._skip_quote(i)
                continue
            if c == open_:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        raise Unparseable(f"unterminated {open_}...{close}")

    def _skip_quote(self, i: int) -> int:
        q = self.s[i]
        j = i + 1
        while j < len(self.s):
            c = self.s[j]
            if c == "\\" and q != "'":
                j += 2
                continue
            if c == q:
                return j + 1
            j += 1
        raise Unparseable(f"unterminated {q} quote")

    def _word(self) -> str:
        """Read one word starting at self.i, removing quotes (substitutions kept verbatim)."""
        out: list[str] = []
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in " \t\n;&|()<>":
                break
            if c == "\\":
                if s[self.i + 1 : self.i + 2] == "\n":
                    self.i += 2
                    continue
                out.append(s[self.i + 1 : self.i + 2])
                self.i += 2
            elif c == "'":
                end = self._skip_quote(self.i)
                out.append(s[self.i + 1 : end - 1])
                self.i = end
            elif c == '"':
                end = self._skip_quote(self.i)
                out.append(re.sub(r'\\([\\"$`])', r"\1", s[self.i + 1 : end - 1]))
                self.i = end
            elif c == "`":
                end = self._skip_quote(self.i)
                out.append(s[self.i : end])
                self.i = end
            elif c == "$" and s[self.i + 1 : self.i + 2] in ("(", "{"):
                open_ = s[self.i + 1]
                end = self._balanced(self.i + 2, open_, ")" if open_ == "(" else "}")
                out.append(s[self.i : end])
                self.i = end
            else:
                out.append(c)
                self.i += 1
        return "".join(out)

    # -- structure -------------------------------------------------------------------
    def _end_segment(self, at: int) -> None:
        self.cur.text = self.s[self.start : at].strip()
        while self.cur.words and self.cur.words[0] in _KEYWORDS:
            self.cur.words.pop(0)
        if self.cur.words or self.cur.redirects:
            self.cur.command = self.command
            self.segments.append(self.cur)
        self.cur = Segment()

    def _read_heredocs(self) -> None:
        """At the start of a line: consume the bodies of pending heredocs."""
        for p in self.pending:
            body: list[str] = []
            while self.i < len(self.s):
                nl = self.s.find("\n", self.i)
                line = self.s[self.i :] if nl < 0 else self.s[self.i : nl]
                self.i = len(self.s) if nl < 0 else nl + 1
                if (line.lstrip("\t") if p.strip_tabs else line) == p.delimiter:
                    break
                body.append(line)
            p.segment.heredoc += "\n".join(body) + "\n"
        self.pending.clear()
        self.start = self.i

    def run(self) -> list[Segment]:
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in " \t":
                self.i += 1
                continue
            if c == "\\" and s[self.i + 1 : self.i + 2] == "\n":
                self.i += 2
                continue
            if c == "#":  # a comment runs to the end of the line
                nl = s.find("\n", self.i)
                self.i = len(s) if nl < 0 else nl
                continue
            if s.startswith(("<(", ">("), self.i):  # process substitution: one word
                end = self._balanced(self.i + 2, "(", ")")
                self.cur.words.append(s[self.i : end])
                self.i = end
                continue
            redirect = _REDIRECT.match(s, self.i)
            if redirect and (redirect.group(1) == "" or s[self.i].isdigit() or c == "&"):
                self.i = redirect.end()
                self._redirect(redirect.group(0))
                continue
            sep = next((p for p in SEPARATORS if s.startswith(p, self.i)), None)
            if sep is not None:
                self._end_segment(self.i)
                if sep in COMMAND_SEPARATORS:
                    self.command += 1
                self.i += len(sep)
                self.start = self.i
                if sep == "\n" and self.pending:
                    self._read_heredocs()
                continue
            word = self._word()
            if self.redirect_op is not None:
                self._finish_redirect(word)
            else:
                self.cur.words.append(word)
        self._end_segment(len(s))
        return self.segments

    def _redirect(self, op: str) -> None:
        self.redirect_op = op
        if op.endswith("<<<"):
            return
        # skip blanks; the next word is the target (or the heredoc delimiter)
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1
        if self.i >= len(self.s) or self.s[self.i] in "\n;&|()<>":
            raise Unparseable(f"redirection {op} without a target")

    def _finish_redirect(self, word: str) -> None:
        op = self.redirect_op or ""
        self.redirect_op = None
        if op.endswith("<<") or op.endswith("<<-"):
            self.pending.append(_Pending(word, op.endswith("-"), self.cur))
        else:
            self.cur.redirects.append((op, word))


def split_command(command: str) -> list[Segment]:
    """The simple commands of `command`, in order; raises Unparseable."""
    return _Lexer(command).run()


def split_commands(command: str) -> list[Command]:
    """The commands of `command` (cut at newline, `;`, `&&`, `||`); raises Unparseable."""
    out: dict[int, Command] = {}
    for seg in split_command(command):
        out.setdefault(seg.command, Command([])).stages.append(seg)
    return list(out.values())
