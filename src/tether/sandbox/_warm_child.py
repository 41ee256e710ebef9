"""Child side of WarmPool (warm.py): runs inside a bwrap sandbox as
`python3 -c SOURCE REPLY_FD` and runs one command at a time, each from a clean slate.

Stdlib only and self-contained: the host passes this file's text with -c, so it must
not import tether (the sandbox sees only the system Python).

Protocol (one JSON line each way, replies on REPLY_FD in the worker's wire format,
see wire.py):
  child -> host  {"ready": true}
  host -> child  "%08x\n" % L, then L bytes of JSON: {"id": N, "argv": [...], "cwd": ...,
                  "env": {...}, "timeout_s": T, "stdin_len": K, "rlimits": {NAME: value},
                  "python_in_fork": bool}, then K raw bytes: the run's stdin
  child -> host  {"id": N, "ok": true, "value": {"returncode", "timed_out", "duration_s",
                  "swept", "clean", "unclean"}}
Every read takes exactly the bytes announced, so the stdin bytes are still in the pipe
when the run is forked: they are read only after the fork, into a bytearray that is
zeroed once written to the run's own stdin pipe. A proof nonce sent there is never in
this process's memory before the run's fork, nor after it is delivered, so no later run
(a fork of this process) can find it.

The run inherits this process's stdout and stderr (the host drains and caps them). It
gets a new session, the run's own rlimits (no POSIX message queues, no core files), a
fresh session keyring, and is the first the kernel kills at the memory limit. At its
deadline its process group is killed. After it, whatever it left is removed before the
reply: every other process in the sandbox's pid namespace, every entry of /tmp and
/dev/shm, entries it added to /dev, System V IPC objects, the keys of the user's
keyrings; modes it changed are put back. The work directory is the host's to make
fresh and to remove. A slate that cannot be cleaned is reported (`clean: false`,
with what is left in `unclean`), and the host then discards this sandbox.

This process is not dumpable, so the runs, which have its user id, can neither read its
memory nor reach its pipes through /proc; a run can still kill it, which ends the
sandbox (the host starts another).
"""

# ast, hashlib and types are for the scripts run in a fork (`python_in_fork`: the check
# runner), imported once here rather than once per run. Nothing imported here keeps
# state a run could read (`random`, whose state every fork would share, is not).
import ast  # noqa: F401
import atexit
import builtins
import ctypes
import hashlib  # noqa: F401
import json
import os
import resource
import select
import signal
import stat
import sys
import time
import traceback
import types

SCRATCH = ("/tmp", "/dev/shm")  # emptied after every run
DEV = "/dev"  # put back as it was at start (entries added removed, links restored)
IPC_RMID = 0
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR, KEYCTL_GET_PERSISTENT = 1, 7, 22
KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -4, -5
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine)
_libc = ctypes.CDLL(None, use_errno=True)


def _send(fd, obj):
    data = memoryview((json.dumps(obj) + "\n").encode())
    while data:
        data = data[os.write(fd, data):]


def _read_exact(fd, size):
    """Exactly `size` bytes of the request pipe (never more: what follows is not ours
    to read yet); None at end of file."""
    data = bytearray(size)
    view, got = memoryview(data), 0
    while got < size:
        n = os.readv(fd, [view[got:]])
        if n == 0:
            return None
        got += n
    view.release()
    return data


def _keyctl(*args):
    if SYS_KEYCTL is None:
        return -1
    return _libc.syscall(SYS_KEYCTL, *[ctypes.c_long(a) for a in args])


def _set_dumpable(flag):
    _libc.prctl(4, flag, 0, 0, 0)  # PR_SET_DUMPABLE


class Baseline:
    """What the clean slate looks like: modes of the scratch dirs, /dev's entries."""

    def __init__(self):
        self.modes = {p: stat.S_IMODE(os.lstat(p).st_mode) for p in (*SCRATCH, DEV)}
        self.dev = {name: _entry(os.path.join(DEV, name)) for name in os.listdir(DEV)}
        self.environ = dict(os.environ)


def _entry(path):
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return ("link", os.readlink(path))
    return ("dir" if stat.S_ISDIR(st.st_mode) else "other", stat.S_IMODE(st.st_mode))


def _spawn(req, base):
    """Fork the run; returns (pid, write end of its stdin)."""
    trusted = _compiled_script(req) if req.get("python_in_fork") else None
    read_in, write_in = os.pipe()
    env = dict(base.environ)
    env.update(req["env"])
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            os.dup2(read_in, 0)
            os.closerange(3, 1 << 16)  # the host's pipes and ours stay ours
            os.chdir(req["cwd"])
            os.umask(0o022)
            for name, value in req["rlimits"].items():
                resource.setrlimit(getattr(resource, name), (value, value))
            _set_dumpable(1)  # its own /proc files are its own again (and exec would)
            with open("/proc/self/oom_score_adj", "w") as fh:
                fh.write("1000")  # at the memory limit, the run goes before this process
            _keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0)  # a session keyring of its own
            if req.get("python_in_fork"):
                _python_here(req["argv"][1:], env, trusted)
            for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # ignored by Python, not by the run
                signal.signal(sig, signal.SIG_DFL)
            os.execvpe(req["argv"][0], req["argv"], env)
        except BaseException as exc:
            try:
                os.write(2, f"warm sandbox: cannot run {req['argv'][0]!r}: {exc}\n".encode())
            finally:
                os._exit(127)
    os.close(read_in)
    os.set_blocking(write_in, False)
    return pid, write_in


#: (path, sha256 of the source) -> code of the trusted scripts run in a fork, compiled
#: once here: the check runner is the same file for every check, and compiling it took
#: about a quarter of a check's time in the sandbox. Code objects are immutable and hold
#: only the script's own text, which every run of it is handed anyway.
_COMPILED: dict[tuple[str, bytes], types.CodeType] = {}
_COMPILED_MAX = 8


def _compiled_script(req):
    """The code of a `python_in_fork` run's script, compiled here before the fork (from
    the cache when the same file was run before); None when it cannot be read or
    compiled here, so that the run itself reports that as python3 would."""
    try:
        script = os.path.abspath(os.path.join(req["cwd"], req["argv"][1]))
        with open(script, "rb") as fh:
            source = fh.read()
        key = (script, hashlib.sha256(source).digest())
        code = _COMPILED.get(key)
        if code is None:
            code = compile(source, script, "exec", dont_inherit=True)
            if len(_COMPILED) < _COMPILED_MAX:
                _COMPILED[key] = code
        return script, code
    except Exception:  # noqa: BLE001 - the run compiles it again and reports the error
        return None


def _python_here(args, env, trusted=None):
    """`python3 SCRIPT ARGS...` without starting an interpreter: this fork of the slot's
    (which has imported the standard library the check runner uses, and nothing of its
    own that a run could read) runs SCRIPT as __main__, exits as python3 would. For
    trusted scripts only (tether's check runner): a fresh interpreter is what `python3
    script.py` promises, and the exec path gives exactly that."""
    os.environ.clear()
    os.environ.update(env)
    sys.argv = list(args)
    script = os.path.abspath(args[0])
    sys.path[0] = os.path.dirname(script)
    code = 0
    try:
        if trusted is not None and trusted[0] == script:
            compiled = trusted[1]
        else:
            with open(script, "rb") as fh:
                compiled = compile(fh.read(), script, "exec", dont_inherit=True)
        main = types.ModuleType("__main__")  # a fresh __main__, as python3 makes one
        main.__file__, main.__builtins__ = script, builtins
        sys.modules["__main__"] = main
        exec(compiled, main.__dict__)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException as exc:  # as python3 prints it: from the script's own frames
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != script:
            tb = tb.tb_next
        traceback.print_exception(type(exc), exc, tb)
        code = 1
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        os._exit(code & 0xFF)


def _wait(pid, stdin_fd, data, deadline):
    """Feed the run its stdin, wait for it to exit or its deadline; (status, timed_out)."""
    pidfd = os.pidfd_open(pid)
    sent, timed_out = 0, False
    if not data:  # nothing to send: the run reads end-of-file at once
        stdin_fd = _close_stdin(stdin_fd, data)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                _killpg(pid)
                break
            writers = [stdin_fd] if stdin_fd is not None else []
            ready, writable, _ = select.select([pidfd], writers, [], left)
            if writable:
                try:
                    with memoryview(data) as view:  # no copy of the bytes (a nonce)
                        sent += os.write(stdin_fd, view[sent:])
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:  # the run closed its stdin: the rest is not wanted
                    sent = len(data)
                if sent >= len(data):
                    stdin_fd = _close_stdin(stdin_fd, data)
            if ready:
                break
    finally:
        _close_stdin(stdin_fd, data)
        os.close(pidfd)
    _killpg(pid)  # what the run started in its group goes with it
    _, status = os.waitpid(pid, 0)
    return status, timed_out


def _close_stdin(fd, data):
    data[:] = bytes(len(data))
    if fd is not None:
        os.close(fd)
    return None


def _killpg(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _others():
    """Live processes of this pid namespace other than its init and this process."""
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, me):
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in (b"Z", b"X"):  # a zombie is dead already; init reaps it
            found.append(int(name))
    return found


def sweep(rounds=200):
    """SIGKILL every other process (they may fork meanwhile: scan until none is left)."""
    killed = 0
    for _ in range(rounds):
        pids = _others()
        if not pids:
            return killed, True
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:
                pass
        time.sleep(0.001)
    return killed, not _others()


def _remove_tree(path):
    """Remove path whatever modes the run gave it (it had our user id: we may chmod)."""
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(path)
        return
    stack, dirs = [path], []
    while stack:
        current = stack.pop()
        os.chmod(current, 0o700)
        dirs.append(current)
        for entry in os.scandir(current):
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            else:
                os.unlink(entry.path)
    for current in reversed(dirs):
        os.rmdir(current)


def _remove_ipc():
    for kind, remove in (("shm", lambda i: _libc.shmctl(i, IPC_RMID, None)),
                         ("msg", lambda i: _libc.msgctl(i, IPC_RMID, None)),
                         ("sem", lambda i: _libc.semctl(i, 0, IPC_RMID))):
        for ident in _ipc_ids(kind):
            remove(ident)


def _ipc_ids(kind):
    try:
        with open(f"/proc/sysvipc/{kind}") as fh:
            return [int(line.split()[1]) for line in fh.readlines()[1:] if line.strip()]
    except OSError:
        return []


def _clear_keys():
    for ring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
        _keyctl(KEYCTL_CLEAR, ring)
    persistent = _keyctl(KEYCTL_GET_PERSISTENT, -1, 0)
    if persistent > 0:
        _keyctl(KEYCTL_CLEAR, persistent)


def clean(base):
    """Put the slate back; returns what could not be (empty: clean). Never raises: what
    the run left is its doing, and this process must outlive it."""
    problems = []
    try:
        _restore_dev(base, problems)
        for path, mode in base.modes.items():  # first: the run may have locked them
            os.chmod(path, mode)
        for root in SCRATCH:
            for name in os.listdir(root):
                try:
                    _remove_tree(os.path.join(root, name))
                except OSError as exc:
                    problems.append(f"{root}/{name}: {exc.strerror}")
        _remove_ipc()
        _clear_keys()
        for root in SCRATCH:
            problems += [f"{root}/{name}: left" for name in os.listdir(root)]
        if {n: _entry(os.path.join(DEV, n)) for n in os.listdir(DEV)} != base.dev:
            problems.append("/dev differs from the start")
        problems += [f"System V {kind} left" for kind in ("shm", "msg", "sem")
                     if _ipc_ids(kind)]
    except OSError as exc:
        problems.append(f"{exc.filename}: {exc.strerror}")
    return problems


def _restore_dev(base, problems):
    """Remove what the run added to /dev, put back links and directories it changed."""
    for name in os.listdir(DEV):
        path = os.path.join(DEV, name)
        want = base.dev.get(name)
        try:
            if want is None or (want[0] != "other" and _entry(path)[0] != want[0]) or (
                    want[0] == "link" and _entry(path) != want):
                _remove_tree(path)
        except OSError as exc:
            problems.append(f"{path}: {exc.strerror}")
    for name, want in base.dev.items():
        path = os.path.join(DEV, name)
        if os.path.lexists(path):
            continue
        if want[0] == "link":
            os.symlink(want[1], path)
        elif want[0] == "dir":
            os.mkdir(path, want[1])
            os.chmod(path, want[1])


def _exit_status(status):
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)  # the shell's convention, as SandboxResult's
    return os.waitstatus_to_exitcode(status)


def main():
    reply_fd = int(sys.argv[1])
    os.set_inheritable(reply_fd, False)
    requests = os.dup(0)  # dup() is non-inheritable: no run gets it
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    _set_dumpable(0)
    base = Baseline()
    _send(reply_fd, {"ready": True})
    while True:
        header = _read_exact(requests, 9)
        body = header and _read_exact(requests, int(header[:8], 16))
        if not body:
            return  # the host closed the pipe: the sandbox ends with this process
        req = json.loads(body)
        start = time.monotonic()
        try:
            pid, stdin_fd = _spawn(req, base)
        except OSError as exc:
            pid, stdin_fd, failure = None, None, exc
        # The run's stdin, read only now that the run is forked; zeroed once delivered.
        data = _read_exact(requests, req["stdin_len"])
        if data is None:
            return
        if pid is None:
            _close_stdin(None, data)
            _send(reply_fd, {"id": req["id"], "ok": False, "kind": "crash",
                             "message": f"could not start the run: {failure}"})
            continue
        status, timed_out = _wait(pid, stdin_fd, data, start + req["timeout_s"])
        duration = time.monotonic() - start
        killed, all_gone = sweep()
        problems = clean(base) if all_gone else ["processes left after the run"]
        _send(reply_fd, {"id": req["id"], "ok": True, "value": {
            "returncode": _exit_status(status), "timed_out": timed_out,
            "duration_s": round(duration, 6), "swept": killed, "clean": not problems,
            "unclean": problems[:20]}})

if __name__ == "__main__":
    main()
