"""The scene worker's template: the process that never runs program code (sandbox side).

Appended by the host after _child.py (same namespace: _run, RENDER_NAME, ... come from
there). execute(request) empties the work dir and /tmp, forks, lets the child run one
program (_child._run) and send its reply as JSON text through a pipe, then ends every
process the program left and empties the directories again, keeping only the output
names the host asked for (regular files only). The template is undumpable, so its
children (same user) cannot ptrace it or write its memory through /proc, and a child
holds no pipe but its own reply pipe and stdio.
"""

import json
import os
import select
import shutil
import signal
import stat
import sys
import time
import traceback

import bpy

CHILD_FAILED = 70  # the child's exit status when it could not even send its reply
TMP = "/tmp"
SCRATCH = ("/dev/shm",)  # emptied between executions like /tmp, where it exists


def _undumpable():
    """The template may not be ptraced or have its memory written through /proc by its
    children (same user): PR_SET_DUMPABLE 0 requires CAP_SYS_PTRACE for both."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


_undumpable()


def _empty(directory, keep=()):
    """Remove everything in `directory` but the names in `keep` (regular files only)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        path = os.path.join(directory, name)
        if name in keep and os.path.isfile(path) and not os.path.islink(path):
            continue
        _remove(path)


def _remove(path):
    """Remove a file, link or whole tree; a program may have locked its directories."""
    if os.path.isdir(path) and not os.path.islink(path):
        try:
            os.chmod(path, 0o700)
        except OSError:
            pass
        for root, dirs, _ in os.walk(path):  # top-down: each dir opened before entered
            for d in dirs:
                try:
                    os.chmod(os.path.join(root, d), 0o700)
                except OSError:
                    pass
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass


def _fresh_tmp():
    """/tmp as the template found it: Blender's own temp dir kept, emptied."""
    tempdir = bpy.app.tempdir.rstrip("/") if bpy.app.tempdir else None
    keep = (os.path.basename(tempdir),) if tempdir and os.path.dirname(tempdir) == TMP else ()
    _empty(TMP, keep)
    if tempdir and os.path.isdir(tempdir):
        _empty(tempdir)
    for directory in SCRATCH:
        _empty(directory)


def _close_fds(keep):
    """The child keeps stdio and its reply pipe; the worker's request and reply pipes
    (and any other pipe or socket) are closed, so a program cannot read the next
    request or answer for the template."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd <= 2 or fd == keep:
            continue
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            os.close(fd)


def _ancestors():
    pids, pid = {os.getpid()}, os.getpid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        pids.add(pid)
    return pids


def _end_strays():
    """SIGKILL every process in the sandbox but the template and its ancestors (a
    program's background children must not outlive its execution)."""
    keep = _ancestors()
    for _ in range(200):
        others = [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) not in keep]
        if not others:
            return
        time.sleep(0.005)
        for pid in others:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in others:
            try:
                os.waitpid(pid, 0)
            except OSError:  # not our child: reaped by the namespace's init
                pass


def _collect(read_fd, pid):
    """The child's reply text and its wait status: read until it exits (a grandchild
    holding the pipe open cannot make the template wait for it)."""
    chunks, status = [], None
    while True:
        ready, _, _ = select.select([read_fd], [], [], 0.2)
        if ready:
            chunk = os.read(read_fd, 1 << 20)
            if chunk:
                chunks.append(chunk)
                continue
        if status is None:
            done, status_now = os.waitpid(pid, os.WNOHANG if not ready else 0)
            if done:
                status = status_now
        if status is not None:
            os.set_blocking(read_fd, False)
            try:
                while chunk := os.read(read_fd, 1 << 20):
                    chunks.append(chunk)
            except BlockingIOError:
                pass
            return b"".join(chunks), status


def execute(request):
    """Run one program in a forked child; returns the child's reply as JSON text (the
    host validates it), or a dict saying how the child failed."""
    # /tmp and the process table are the sandbox's own only under bwrap (a private /tmp
    # and PID namespace): the host says so, else they are not touched.
    isolated = request.get("isolated") is True
    keep_inputs = (RESUME_NAME,) if request.get("resume") else ()  # noqa: F821
    _empty(WORKDIR, keep_inputs)  # noqa: F821 (_child.py)
    if isolated:
        _fresh_tmp()
    sys.stdout.flush()
    sys.stderr.flush()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = CHILD_FAILED
        try:
            os.close(read_fd)
            _close_fds(write_fd)
            data = json.dumps(_run(request)).encode()  # noqa: F821
            view = memoryview(data)
            while view:
                view = view[os.write(write_fd, view):]
            status = 0
        except BaseException:
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(status)
    os.close(write_fd)
    try:
        data, status = _collect(read_fd, pid)
    finally:
        os.close(read_fd)
    if isolated:
        _end_strays()
    _empty(WORKDIR, tuple(request.get("keep", ())))  # noqa: F821
    if isolated:
        _fresh_tmp()
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return data.decode("utf-8", "replace")
    if os.WIFSIGNALED(status):
        return {"died": "signal", "code": os.WTERMSIG(status)}
    return {"died": "exit", "code": os.WEXITSTATUS(status)}
