"""The write tracer: Python semantics kept exactly; on real bpy, owners and readbacks."""

from __future__ import annotations

import traceback

import pytest

from tether.systems.scene import trace

ORDER_PROGRAM = """
log = []
class Box:
    # Stores are kept, so the tracer's readback finds them without __getattr__ /
    # a logged __getitem__: the log shows the program's own steps only.
    def __init__(self, name):
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "d", {})
    def __getattr__(self, k):
        log.append(("get", self.name, k))
        return 5 if k == "t" else Box(self.name + "." + k)
    def __setattr__(self, k, v):
        log.append(("set", self.name, k, v))
        object.__setattr__(self, k, v)
    def __getitem__(self, k):
        if k in self.d:
            return self.d[k]
        log.append(("getitem", self.name, k))
        return 10
    def __setitem__(self, k, v):
        log.append(("setitem", self.name, k, v))
        self.d[k] = v
def f(tag, value):
    log.append(("eval", tag))
    return value
b = Box("b")
f("obj", b).x.y = f("value", 1)
f("obj", b)[f("key", 2)] = f("value", 3)
f("o1", b).p, (f("o2", b)[0], *rest) = f("value", (4, (5, 6, 7)))
f("a", b).q = f("b", b).r = f("value", 8)
f("obj", b)[f("key", 9)] += f("value", 1)
f("obj", b).s.t += f("value", 2)
setattr(f("obj", b), f("name", "u"), f("value", 11))
for b.loop in range(2):
    pass
n: int = 3
b.ann: int = 4
"""


def run(source: str, traced: bool, tracer: trace.Tracer | None = None) -> dict:
    env: dict = {"__name__": "__main__"}
    if traced:
        env[trace.TRACER_NAME] = tracer or trace.Tracer()
        exec(trace.compile_traced(source, "prog.py"), env)
    else:
        exec(compile(source, "prog.py", "exec"), env)
    return env


def test_python_order_and_effects_are_kept() -> None:
    plain = run(ORDER_PROGRAM, traced=False)["log"]
    tracer = trace.Tracer()
    traced = run(ORDER_PROGRAM, traced=True, tracer=tracer)["log"]
    assert traced == plain and len(plain) > 30
    # every store was seen: x.y, [2], .p, [0], .q, .r, [9] aug, .t aug, setattr u, loop x2,
    # ann, and the three `self.d[k] = v` inside Box.__setitem__ (program code too)
    n = len(tracer.events) + len(tracer.unresolved)
    assert n == 15 and not tracer.truncated


def test_errors_are_the_untraced_ones_and_earlier_events_stay() -> None:
    source = "class A:\n    pass\na = A()\na.x = 1\na.y = 2\nraise_here = (1).real.foo = 3\n"
    with pytest.raises(AttributeError) as untraced:
        run(source, traced=False)
    tracer = trace.Tracer()
    with pytest.raises(AttributeError) as traced:
        run(source, traced=True, tracer=tracer)
    assert str(traced.value) == str(untraced.value)
    # the last frame of the program is the user's line (the store itself is one deeper)
    frames = traceback.extract_tb(traced.value.__traceback__)
    assert [f.lineno for f in frames if f.filename == "prog.py"][-1] == 6
    # plain objects have no scene owner: unresolved with line and reason, never guessed
    assert [u["line"] for u in tracer.unresolved] == [4, 5]
    assert all(u["reason"] for u in tracer.unresolved)


def test_rebound_setattr_is_called_not_traced() -> None:
    tracer = trace.Tracer()
    env = run("calls = []\nsetattr = lambda *a: calls.append(a)\nsetattr(1, 'x', 2)\n",
              traced=True, tracer=tracer)
    assert env["calls"] == [(1, "x", 2)] and tracer.unresolved == []


def test_events_are_bounded() -> None:
    tracer = trace.Tracer(max_events=5)
    env = run("class A:\n    pass\na = A()\nfor i in range(20):\n    a.x = i\n",
              traced=True, tracer=tracer)
    assert env["a"].x == 19  # stores go on after the cap
    assert len(tracer.unresolved) == 5 and tracer.truncated


def test_syntax_errors_are_raised() -> None:
    with pytest.raises(SyntaxError):
        trace.compile_traced("x.y = = 1\n")


def test_a_method_call_is_made_from_the_program_s_own_frame() -> None:
    """Method calls go through the tracer (for `via`), but the call itself stays in the
    program: a callee that inspects its caller's frame sees the program's."""
    env = {"__name__": "__main__", trace.TRACER_NAME: trace.Tracer(bpy=None)}
    exec(trace.compile_traced("import sys\nname = sys._getframe(0).f_code.co_name\n"
                              "class A:\n    pass\nA.who = sys._getframe(0).f_code.co_name\n"),
         env)
    assert env["name"] == "<module>" and env["A"].who == "<module>"


def test_run_program_reports_a_clean_run_as_no_error():
    env: dict = {}
    assert trace.run_program(compile("x = 1 + 1", "p.py", "exec"), env, "p.py") is None
    assert env["x"] == 2


def test_run_program_names_the_programs_own_line_of_a_raise():
    code = compile("def f():\n    raise KeyError('k')\n\nf()\n", "p.py", "exec")
    error = trace.run_program(code, {}, "p.py")
    assert error is not None
    assert (error["kind"], error["type"], error["line"]) == ("raised", "KeyError", 2)
    assert "KeyError" in error["traceback"]


def test_run_program_refuses_a_quit_as_unsupported():
    error = trace.run_program(compile("raise SystemExit(3)", "p.py", "exec"), {}, "p.py")
    assert error is not None
    assert (error["kind"], error["line"]) == ("unsupported", 1)
    assert error["message"] == "the program tried to quit (SystemExit)"


def test_program_error_takes_a_syntax_errors_line_and_cuts_long_messages():
    try:
        compile("x = (\n", "p.py", "exec")
    except SyntaxError as exc:
        assert trace.program_error("syntax", exc, "p.py")["line"] == 1
    long = trace.program_error("raised", ValueError("v" * 9000), "p.py")
    assert len(long["message"]) == trace.TEXT_TAIL
