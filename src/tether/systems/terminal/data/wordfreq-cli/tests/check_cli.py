"""Hidden I/O-contract checks for /app/wordfreq.py."""

import os
import subprocess
import sys
import tempfile

PROG = ["python3", "/app/wordfreq.py"]
failures = []


def run(args, stdin=""):
    return subprocess.run(PROG + args, input=stdin, capture_output=True, text=True, timeout=10)


def expect(name, args, stdin, out, err="", code=0):
    r = run(args, stdin)
    if (r.stdout, r.stderr.strip(), r.returncode) != (out, err, code):
        failures.append(f"{name}: got stdout={r.stdout!r} stderr={r.stderr!r} code={r.returncode}")


expect("example", ["-n", "2"], "b a B c b a", "3 b\n2 a\n")
expect("default-10", [], " ".join(f"w{c}" for c in "lkjihgfedcba"),
       "".join(f"1 w{c}\n" for c in "abcdefghij"))
expect("ties-alpha", [], "pear apple fig apple pear", "2 apple\n2 pear\n1 fig\n")
expect("apostrophe", ["-n", "5"], "Don't stop", "1 don\n1 stop\n1 t\n")
expect("empty", [], "", "")
expect("punct-only", [], "... 123 !!!", "")
expect("bad-n-zero", ["-n", "0"], "a", "", "error: N must be a positive integer", 2)
expect("bad-n-word", ["-n", "x"], "a", "", "error: N must be a positive integer", 2)
expect("missing-file", ["/nonexistent/f.txt"], "", "", "error: cannot read /nonexistent/f.txt", 1)
words = " ".join(["zeta"] * 3 + ["alpha"] * 3 + ["mid"] * 2 + [f"x{'y' * i}" for i in range(12)])
expect("top-3", ["-n", "3"], words, "3 alpha\n3 zeta\n2 mid\n")
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "in.txt")
    with open(path, "w") as fh:
        fh.write("One two TWO three three THREE\n")
    expect("file-arg", [path], "ignored ignored ignored ignored", "3 three\n2 two\n1 one\n")
    expect("file-and-n", ["-n", "1", path], "", "3 three\n")

for f in failures:
    print(f)
sys.exit(1 if failures else 0)
