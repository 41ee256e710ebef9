"""Child side of SandboxedWorker; runs inside the sandbox as `python3 -c SOURCE REPLY_FD`.

Stdlib only and self-contained: the host passes this file's text with -c, so it must
not import tether (the sandbox sees only the system Python).

Protocol, one JSON object per line:
  child -> host  {"ready": true}                         once the interpreter is up
  host -> child  {"op": "load", "source": ..., "filename": ...}
  child -> host  {"ok": true} | {"ok": false, "kind": "load", ...}
  host -> child  {"id": N, "name": ..., "args": [...], "fresh": bool, "isolated": bool}
  child -> host  {"id": N, "ok": true, "value": ...} | {"id": N, "ok": false, "kind": ...}
An isolated call (fresh, and "isolated": true) runs in a forked copy of the interpreter
that exits after it: nothing the call does to the interpreter (module attributes,
sys.modules, monkeypatches) reaches a later call, and it starts in a work dir holding
only what was there once the program had loaded (whatever an earlier call added is
removed first: the host has killed that call's stray processes by then). The fork's
reply channel is a pipe to this process, which relays what arrives and reports a fork
that died without replying.
Requests come on the original stdin, which the program never sees (its fd 0 is
/dev/null); replies leave on REPLY_FD. The program's prints go to the process's own
stdout/stderr, which the host drains and caps: they cannot corrupt a reply.
"""

import builtins
import json
import linecache
import os
import random
import select
import signal
import sys
import traceback

TEXT_TAIL = 4000
# The program's module name: not "__main__", so `if __name__ == "__main__":` blocks
# written for running it as a script stay out of the worker.
PROGRAM_MODULE = "__tether_program__"


def _send(fd, obj):
    data = (json.dumps(obj) + "\n").encode()
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _error(kind, exc):
    if kind == "memory":
        # The frames still hold what filled memory; free it before formatting.
        traceback.clear_frames(exc.__traceback__)
    tb = exc.__traceback__
    # Drop our own frame (the call site in this file): the tail shows the program.
    tb = tb.tb_next if tb is not None and tb.tb_next is not None else tb
    cls = type(exc)
    module = cls.__module__
    name = cls.__qualname__
    if module not in ("builtins", PROGRAM_MODULE):
        name = f"{module}.{name}"
    text = "".join(traceback.format_exception(cls, exc, tb))
    return {
        "ok": False,
        "kind": kind,
        "error_type": name,
        "message": (str(exc) or name)[-TEXT_TAIL:],
        "traceback": text[-TEXT_TAIL:],
    }


def _namespace(filename):
    return {"__name__": PROGRAM_MODULE, "__file__": filename, "__builtins__": builtins}


def _flush_output():
    # Block-buffered prints must reach the pipes before the reply, so the host
    # counts them to this call; restore streams the program may have replaced.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a program-made stream may be broken
            pass
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    sys.stdout.flush()
    sys.stderr.flush()


def _call(request, code, persistent, filename, start_cwd, hash_seed):
    try:
        if request["fresh"]:
            # Fresh state: new module globals, the start directory, a reseeded
            # `random`. Imported modules stay loaded (that is what keeps it cheap).
            os.chdir(start_cwd)
            random.seed(hash_seed)
            namespace = _namespace(filename)
            exec(code, namespace)
        else:
            namespace = persistent
        fn = namespace.get(request["name"])
        if not callable(fn):
            raise NameError(f"the program defines no function {request['name']!r}")
        value = fn(*request["args"])
    except MemoryError as exc:
        return _error("memory", exc)
    except BaseException as exc:  # SystemExit too: the call failed
        return _error("raised", exc)
    finally:
        _flush_output()
    return {"ok": True, "value": value}


def main():
    reply_fd = int(sys.argv[1])
    os.set_inheritable(reply_fd, False)  # the program's subprocesses do not get it
    requests = os.fdopen(os.dup(0), "rb")  # dup() is non-inheritable too
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    hash_seed = int(os.environ.get("PYTHONHASHSEED", "0"))
    _send(reply_fd, {"ready": True})

    load = json.loads(requests.readline())
    filename = load["filename"]
    start_cwd = os.getcwd()
    persistent = _namespace(filename)
    # Tracebacks quote the program's lines: it has no file, so seed linecache
    # (an entry without mtime is never invalidated).
    source = load["source"]
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        code = compile(source, filename, "exec")
        random.seed(hash_seed)
        exec(code, persistent)
    except BaseException as exc:
        _flush_output()
        _send(reply_fd, _error("load", exc))
        return
    _flush_output()
    _send(reply_fd, {"ok": True})
    baseline = frozenset(os.listdir(start_cwd))

    for line in requests:
        request = json.loads(line)
        if request["fresh"] and request.get("isolated"):
            _clear_work_dir(start_cwd, baseline)
            _isolated_call(request, code, persistent, filename, start_cwd, hash_seed, reply_fd)
            continue
        reply = _call(request, code, persistent, filename, start_cwd, hash_seed)
        _answer(reply_fd, request, reply)


def _answer(reply_fd, request, reply):
    reply["id"] = request["id"]
    try:
        _send(reply_fd, reply)  # serialises before writing: a failure sends nothing
    except (TypeError, ValueError, RecursionError) as exc:
        error = _error("unserialisable", exc)
        error["message"] = f"{request['name']} returned a value JSON cannot hold: {exc}"
        error["traceback"] = ""  # it would show only json's internals
        error["id"] = request["id"]
        _send(reply_fd, error)


def _isolated_call(request, code, persistent, filename, start_cwd, hash_seed, reply_fd):
    """Run one call in a fork; relay its reply line, or say how the fork died."""
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the fork: its reply fd number now leads to this process's pipe
        try:
            os.close(read_end)
            os.dup2(write_end, reply_fd, inheritable=False)
            os.close(write_end)
            _answer(reply_fd, request,
                    _call(request, code, persistent, filename, start_cwd, hash_seed))
        finally:
            os._exit(0)
    os.close(write_end)
    pidfd = os.pidfd_open(pid)
    wrote, last = 0, b"\n"
    try:
        # Read while the fork runs (a long reply must not block it), stop when it has
        # exited: a grandchild still holding the pipe cannot keep this process waiting.
        while True:
            ready, _, _ = select.select([read_end, pidfd], [], [])
            if read_end in ready:
                data = os.read(read_end, 1 << 16)
                if data:
                    wrote, last = wrote + len(data), data[-1:]
                    _write_all(reply_fd, data)
                    continue
            if pidfd in ready or read_end in ready:
                break
        os.set_blocking(read_end, False)
        while True:  # what the fork wrote just before it exited
            try:
                data = os.read(read_end, 1 << 16)
            except BlockingIOError:
                break
            if not data:
                break
            wrote, last = wrote + len(data), data[-1:]
            _write_all(reply_fd, data)
    finally:
        os.close(read_end)
        os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    if wrote:
        if last != b"\n":
            _write_all(reply_fd, b"\n")  # a cut line: the host finds it is not JSON
        return
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            how = f"was killed by signal {number} ({signal.Signals(number).name})"
        except ValueError:
            how = f"was killed by signal {number}"
    else:
        how = f"exited with status {os.waitstatus_to_exitcode(status)}"
    _send(reply_fd, {"id": request["id"], "ok": False, "kind": "crash",
                     "error_type": "", "message": f"the call's process {how} without replying",
                     "traceback": ""})


def _clear_work_dir(path, baseline):
    """Remove what is in `path` beyond the names in `baseline`: an isolated call starts
    from the work dir the program loaded into. Iterative (a call may nest dirs deeper than
    the recursion limit) and forgiving: a mode a call took away is given back first."""
    for name in os.listdir(path):
        if name not in baseline:
            _remove(os.path.join(path, name))


def _remove(top):
    if os.path.islink(top) or not os.path.isdir(top):
        try:
            os.unlink(top)
        except OSError:
            pass
        return
    dirs, stack = [], [top]
    while stack:
        d = stack.pop()
        try:
            os.chmod(d, 0o700)
            entries = list(os.scandir(d))
        except OSError:
            entries = []
        dirs.append(d)
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                stack.append(e.path)
            else:
                try:
                    os.unlink(e.path)
                except OSError:
                    pass
    for d in reversed(dirs):
        try:
            os.rmdir(d)
        except OSError:
            pass


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


if __name__ == "__main__":
    main()
