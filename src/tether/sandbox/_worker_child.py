"""Child side of SandboxedWorker; runs inside the sandbox as `python3 -c SOURCE REPLY_FD`.

Stdlib only and self-contained: the host passes this file's text with -c, so it must
not import tether (the sandbox sees only the system Python).

Protocol, one JSON object per line:
  child -> host  {"ready": true}                         once the interpreter is up
  host -> child  {"op": "load", "source": ..., "filename": ...}
  child -> host  {"ok": true} | {"ok": false, "kind": "load", ...}
  host -> child  {"id": N, "name": ..., "args": [...], "fresh": bool}
  child -> host  {"id": N, "ok": true, "value": ...} | {"id": N, "ok": false, "kind": ...}
Requests come on the original stdin, which the program never sees (its fd 0 is
/dev/null); replies leave on REPLY_FD. The program's prints go to the process's own
stdout/stderr, which the host drains and caps: they cannot corrupt a reply.
"""

import builtins
import json
import linecache
import os
import random
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

    for line in requests:
        request = json.loads(line)
        reply = _call(request, code, persistent, filename, start_cwd, hash_seed)
        reply["id"] = request["id"]
        try:
            _send(reply_fd, reply)  # serialises before writing: a failure sends nothing
        except (TypeError, ValueError, RecursionError) as exc:
            error = _error("unserialisable", exc)
            error["message"] = f"{request['name']} returned a value JSON cannot hold: {exc}"
            error["traceback"] = ""  # it would show only json's internals
            error["id"] = request["id"]
            _send(reply_fd, error)


if __name__ == "__main__":
    main()
