"""models/openai_import.py: the SDK imported with its type packages made lazy gives the
same names and objects as the eager import, and a chat completion works through it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tether.models.openai_import import reexports


def _in_fresh_python(code: str) -> dict:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


#: in a fresh interpreter: every package under openai.types, with the public names its
#: __init__ makes (the eager import) or would make (the lazy one), each named by where it
#: is defined; `lazy` names the packages made lazy
_WALK = """
    import importlib, inspect, json, pkgutil, sys
    {how}
    import openai.types
    from tether.models.openai_import import reexports
    out, lazy = {{}}, []
    for info in pkgutil.walk_packages(openai.types.__path__, "openai.types."):
        if not info.ispkg:
            continue
        package = importlib.import_module(info.name)
        if "__getattr__" in vars(package):
            lazy.append(info.name)
        source = inspect.getsource(package)
        names = reexports(source) or {{}}
        out[info.name] = {{
            n: "%s:%s" % (getattr(getattr(package, n), "__module__", "?"),
                          getattr(getattr(package, n), "__qualname__", n))
            for n in names}}
        for n, (sub, orig) in names.items():  # the very object of its submodule
            assert getattr(package, n) is getattr(
                importlib.import_module(info.name + "." + sub), orig), (info.name, n)
    print(json.dumps({{"packages": out, "lazy": lazy}}))
"""


def test_lazy_packages_export_the_eager_packages_names_and_objects() -> None:
    eager = _in_fresh_python(_WALK.format(how="import openai"))
    lazy = _in_fresh_python(_WALK.format(
        how="from tether.models.openai_import import import_openai; import_openai()"))
    assert eager["lazy"] == [] and "openai.types.chat" in lazy["lazy"]
    assert len(lazy["lazy"]) >= 3  # openai.types's own subpackages, at least
    assert lazy["packages"] == eager["packages"]
    assert sum(map(len, eager["packages"].values())) > 300  # the walk saw the SDK's types


def test_a_chat_completion_loads_a_fraction_of_the_sdk(fault_server) -> None:
    fault_server.script = [
        {"text": "hello"},
        {"tool_calls": [{"id": "c1", "name": "bash", "arguments": '{"command": "ls"}'}]},
        {"status": 429, "json": {"error": {"message": "slow down"}}},
    ]
    got = _in_fresh_python(f"""
        import json, sys
        from tether.models.base import GenerateParams, function_tool
        from tether.models.errors import ModelError
        from tether.models.openai_backend import OpenAICompatibleModel
        from tether.models.retry import RetryPolicy
        model = OpenAICompatibleModel("m", base_url={fault_server.base_url!r}, key_env=None,
                                      timeout_s=10.0, retry=RetryPolicy(max_attempts=1))
        text = model.generate([{{"role": "user", "content": "hi"}}])[0]
        bash = function_tool("bash", "Run.", {{"type": "object", "properties": {{}}}})
        tool = model.generate([{{"role": "user", "content": "ls"}}],
                              GenerateParams.of(tools=[bash]))[0]
        try:
            model.generate([{{"role": "user", "content": "again"}}])
            error = None
        except ModelError as exc:
            error = type(exc).__name__
        loaded = [m for m in sys.modules if m.startswith("openai")]
        print(json.dumps({{"text": text.text, "usage": text.usage.output_tokens,
                          "tool": [c.name for c in tool.tool_calls], "error": error,
                          "loaded": len(loaded),
                          "responses": "openai.types.responses.response" in sys.modules}}))
    """)
    assert got["text"] == "hello" and got["usage"] > 0 and got["tool"] == ["bash"]
    assert got["error"] is not None  # the SDK's status error, mapped as ever
    # the eager import loads some 540 of the SDK's modules (openai 3.x), a chat
    # completion through the lazy one about 150
    assert not got["responses"] and got["loaded"] < 300


def test_an_sdk_imported_before_is_used_as_it_is() -> None:
    got = _in_fresh_python("""
        import json, openai
        from tether.models.openai_import import import_openai
        same = import_openai() is openai
        print(json.dumps({"same": same,
                          "lazy": "__getattr__" in vars(openai.types)}))
    """)
    assert got == {"same": True, "lazy": False}


@pytest.mark.parametrize("source, expected", [
    ('"""Doc."""\nfrom __future__ import annotations\nfrom .a import B as B\n'
     "from .c import D, E as F\n", {"B": ("a", "B"), "D": ("c", "D"), "F": ("c", "E")}),
    ("", {}),
])
def test_a_package_of_reexports_is_read(source, expected) -> None:
    assert reexports(source) == expected


@pytest.mark.parametrize("source", [
    "from .a import B\nX = 1\n",                      # code beside the imports
    "from .a import *\n",                             # a star import: names unknown
    "from . import a\n",                              # a submodule bound by name
    "from openai.types.a import B\n",                 # an absolute import
    "import typing\nfrom .a import B\n",
    "from .a import B\nif True:\n    from .c import D\n",
])
def test_any_other_package_runs_as_written(source) -> None:
    assert reexports(source) is None
