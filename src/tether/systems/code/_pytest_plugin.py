"""pytest plugin staged into the sandbox (stdlib + pytest only, no tether imports).

Loaded with `-p tether_pytest_plugin` before any test module (and so before the
candidate's solution.py) is imported: it reads the run's nonce from a file and deletes
it at import, records every test report, and at session end writes the results file
whose name and content prove this plugin reached the end. A candidate that exits the
process, or kills it, leaves no proof. Inside the sandbox (TETHER_ISOLATED=1) every
other candidate process is killed before the file is written.
"""

import hashlib
import json
import os
import signal
import time

_NONCE_FILE = ".tether_nonce"
with open(_NONCE_FILE) as _fh:
    _NONCE = _fh.read().strip()
os.unlink(_NONCE_FILE)
_TESTS: list[dict[str, object]] = []
_COLLECT_ERRORS: list[dict[str, object]] = []


def _message(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message)[:1000], crash.lineno
    return str(report.longrepr)[-1000:] if report.longrepr else "", None


def pytest_runtest_logreport(report):
    if report.when != "call" and report.passed:
        return
    message, lineno = _message(report) if not report.passed else ("", None)
    _TESTS.append({
        "nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
        "message": message, "line": lineno or (report.location[1] + 1),
        "file": report.location[0], "duration_s": round(report.duration, 6),
        "longrepr": (report.longreprtext or "")[-3000:] if report.failed else "",
    })


def pytest_collectreport(report):
    if report.failed:
        _COLLECT_ERRORS.append({"nodeid": report.nodeid,
                                "message": (report.longreprtext or "")[-3000:]})


def _end_others():
    """SIGKILL every process of the sandbox's pid namespace but its init, pytest and the
    process that started pytest (bwrap's init, or the warm sandbox's server, which
    outlives this run), scanning until none is left (they may fork meanwhile)."""
    keep = {1, os.getpid(), os.getppid()}
    for _ in range(200):
        alive = []
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) in keep:
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    state = fh.read().rsplit(b")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state not in (b"Z", b"X"):  # zombies are dead already
                alive.append(int(name))
        if not alive:
            return
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.001)


def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("TETHER_ISOLATED") == "1":
        _end_others()  # inside the sandbox's pid namespace: every candidate process
    result = {"nonce": _NONCE, "exitstatus": int(exitstatus), "tests": _TESTS,
              "collect_errors": _COLLECT_ERRORS}
    name = ".tether-results-" + hashlib.sha256(_NONCE.encode()).hexdigest()[:32] + ".json"
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(result, fh)
