"""One launched worker child and the exchange of one request for one reply line.

The child has three outputs: its stdout and stderr (the program's prints, drained
into capped buffers so a flood never blocks it) and a reply pipe whose write end it
inherited (one JSON line per request). A pidfd says the moment the process is gone,
so a crash is noticed at once, not when every copy of the pipes has been closed.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Literal

from ._proc import DRAIN_GRACE_S, Launch, kill_group
from .base import HeadTailBuffer, SandboxError
from .wire import WireReply, parse_wire_reply

Ended = Literal["reply", "timeout", "exit", "output_limit", "protocol"]


@dataclass
class Exchange:
    """How one request went: a reply line, or why there is none (the child is unusable)."""

    ended: Ended
    reply: WireReply | None
    detail: str
    stdout: str
    stderr: str
    stdout_elided: int
    stderr_elided: int


@dataclass(frozen=True)
class Exit:
    """What a stopped child left behind, for classify()."""

    returncode: int | None
    oom_killed: bool | None
    pids_limited: bool | None


class WorkerProcess:
    """A started child: write requests, read replies and output, stop it for good."""

    def __init__(self, launch: Launch, reply_read: int, reply_write: int) -> None:
        self.launch = launch
        try:
            self.proc = subprocess.Popen(
                launch.cmd,
                cwd=launch.cwd,
                env=launch.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # own process group: one killpg reaches all
                preexec_fn=launch.preexec_fn,
                pass_fds=(reply_write, *launch.fds),
                close_fds=True,
            )
        except OSError as exc:
            os.close(reply_read)
            launch.close()
            raise SandboxError(f"could not start the worker process: {exc}") from exc
        finally:
            os.close(reply_write)  # the child holds it now: EOF when the child is gone
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._reply_fd = reply_read
        self._out_fds = {"out": self.proc.stdout.fileno(), "err": self.proc.stderr.fileno()}
        self._pidfd = os.pidfd_open(self.proc.pid)
        self._partial = bytearray()
        self._sel = selectors.DefaultSelector()
        for tag, fd in (*self._out_fds.items(), ("reply", reply_read)):
            os.set_blocking(fd, False)
            self._sel.register(fd, selectors.EVENT_READ, tag)
        self._sel.register(self._pidfd, selectors.EVENT_READ, "exit")
        os.set_blocking(self.proc.stdin.fileno(), False)
        self.stopped: Exit | None = None
        #: the processes of a loaded, idle worker; anything else after a call is a stray
        self.base: frozenset[int] = frozenset()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def exchange(
        self,
        message: bytes,
        *,
        timeout_s: float,
        output_cap_chars: int,
        hard_output_bytes: int,
        max_reply_bytes: int,
    ) -> Exchange:
        """Send message (may be empty) and wait for the next reply line until timeout_s."""
        assert self.proc.stdin is not None
        bufs = {"out": HeadTailBuffer(output_cap_chars), "err": HeadTailBuffer(output_cap_chars)}
        stdin_fd = self.proc.stdin.fileno()
        pending = memoryview(message)
        if pending:
            self._sel.register(stdin_fd, selectors.EVENT_WRITE, "in")
        deadline = time.monotonic() + timeout_s
        ended: Ended | None = None
        reply: WireReply | None = None
        detail = ""
        try:
            while ended is None:
                now = time.monotonic()
                if now >= deadline:
                    ended = "timeout"
                    break
                for key, _ in self._sel.select(timeout=deadline - now):
                    tag = key.data
                    if tag == "in":
                        try:
                            pending = pending[os.write(stdin_fd, pending) :]
                        except BlockingIOError:
                            continue
                        except BrokenPipeError:
                            pending = pending[:0]  # the child is gone: "exit" follows
                        if not pending:
                            self._sel.unregister(stdin_fd)
                    elif tag in ("out", "err"):
                        self._read_output(key.fd, bufs[tag])
                        if sum(b.total_bytes for b in bufs.values()) > hard_output_bytes:
                            ended = "output_limit"
                    elif tag == "reply":
                        ended, reply, detail = self._read_reply(max_reply_bytes)
                    else:  # the process exited: take a reply it wrote on the way out
                        ended, reply, detail = self._read_reply(max_reply_bytes)
                        if ended is None:
                            ended = "exit"
                    if ended is not None:
                        break
        finally:
            if "in" in (k.data for k in self._sel.get_map().values()):
                self._sel.unregister(stdin_fd)
        if ended == "reply":
            # Whatever the child printed before replying is in the pipes already.
            for tag, buf in bufs.items():
                self._read_output(self._out_fds[tag], buf, until=hard_output_bytes)
        elif ended == "exit":
            self._drain_after_exit(bufs)
        out, out_el = bufs["out"].finish()
        err, err_el = bufs["err"].finish()
        return Exchange(ended, reply, detail, out, err, out_el, err_el)

    def _read_output(self, fd: int, buf: HeadTailBuffer, *, until: int = 0) -> bool:
        """Read what is there now (all of it, up to `until` more bytes, if until > 0).

        Returns False at EOF.
        """
        limit = buf.total_bytes + until
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                return True
            if not data:
                if fd in self._sel.get_map():
                    self._sel.unregister(fd)
                return False
            buf.feed(data)
            if not until or buf.total_bytes > limit:
                return True

    def _drain_after_exit(self, bufs: dict[str, HeadTailBuffer]) -> None:
        # A straggler may hold the pipes open (unsafe backend): wait only briefly.
        end = time.monotonic() + DRAIN_GRACE_S
        fds = {fd: tag for tag, fd in self._out_fds.items()}
        open_fds = set(fds)
        while open_fds and time.monotonic() < end:
            sel = selectors.DefaultSelector()
            try:
                for fd in open_fds:
                    sel.register(fd, selectors.EVENT_READ)
                for key, _ in sel.select(timeout=max(end - time.monotonic(), 0.0)):
                    if not self._read_output(key.fd, bufs[fds[key.fd]]):
                        open_fds.discard(key.fd)
            finally:
                sel.close()

    def _read_reply(self, max_reply_bytes: int) -> tuple[Ended | None, WireReply | None, str]:
        while b"\n" not in self._partial:
            try:
                data = os.read(self._reply_fd, 1 << 20)
            except BlockingIOError:
                break
            if not data:  # every copy of the write end is closed: "exit" will follow
                if self._reply_fd in self._sel.get_map():
                    self._sel.unregister(self._reply_fd)
                break
            self._partial += data
            if len(self._partial) > max_reply_bytes:
                return "protocol", None, f"reply longer than {max_reply_bytes} bytes"
        line, newline, rest = bytes(self._partial).partition(b"\n")
        if not newline:
            return None, None, ""
        if rest:
            return "protocol", None, "the child sent more than one reply"
        self._partial.clear()
        reply, why = parse_wire_reply(line)
        if reply is None:  # the child chose the bytes: its fault, never the host's
            return "protocol", None, why
        return "reply", reply, ""

    def processes(self) -> set[int]:
        """Live processes of this worker: its tree, its process group and its cgroup."""
        found = _tree(self.proc.pid)
        if self.launch.cgroup is not None:
            found |= set(self.launch.cgroup.members())
        return found

    def mark_base(self) -> None:
        """Remember the processes of the idle worker (bwrap, its init, the interpreter)."""
        self.base = frozenset(self.processes())

    def kill_strays(self, rounds: int = 50) -> int:
        """SIGKILL every process that a call left behind; how many were killed.

        A stray may fork while it is being killed: scan again until none is left.
        """
        killed = 0
        for _ in range(rounds):
            strays = self.processes() - self.base
            if not strays:
                break
            for pid in strays:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
                except ProcessLookupError:
                    pass
            time.sleep(0.001)
        return killed

    def stop(self) -> Exit:
        """Kill the whole process group (and cgroup), reap it, remove the cgroup."""
        if self.stopped is not None:
            return self.stopped
        kill_group(self.proc.pid)
        self.launch.sweep()
        self._sel.close()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        os.close(self._reply_fd)
        os.close(self._pidfd)
        try:
            returncode: int | None = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            returncode = None
        evidence = self.launch.evidence()
        self.launch.close()
        self.stopped = Exit(returncode, evidence["oom_killed"], evidence["pids_limited"])
        return self.stopped


def _tree(root: int) -> set[int]:
    """root, its descendants and the members of its process group (live ones only).

    Descendants catch what left the group (setsid); the group catches what left the
    tree (an orphan reparented outside a pid namespace, under the unsafe backend).
    """
    children: dict[int, list[int]] = {}
    grouped: set[int] = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] in (b"Z", b"X"):
            continue  # dead already, waiting to be reaped
        pid, ppid, pgid = int(entry.name), int(fields[1]), int(fields[2])
        children.setdefault(ppid, []).append(pid)
        if pgid == root:
            grouped.add(pid)
    found: set[int] = set()
    stack = [root]
    while stack:
        pid = stack.pop()
        if pid not in found:
            found.add(pid)
            stack += children.get(pid, [])
    return found | grouped
