"""One parser for every model spec.

Forms (options may follow as `;key=value`, e.g. `;concurrency=4;timeout_s=60`; they are
split by the shared `tether.specs.parse_spec`, then each option is checked for its type
here: concurrency, n_threads integers >= 1, n_ctx an integer >= 16, timeout_s (each read)
and deadline_s (the whole call: tether.models.deadline) finite numbers > 0, reasoning a
flag, true for 1/true/yes, any other option the text written;
a bad value is a one-line UnknownModelError; `effort=low|medium|high|max` on openai and
openai-compatible reasoning models is the effort a call asks for when it names no
thinking budget, e.g. a selector served at its provider's "max"):
  local/smollm2-135m                 the embedded default (llama.cpp, in-process)
  local/PATH.gguf                    any GGUF file on disk
  openai/MODEL                       OpenAI (key from OPENAI_API_KEY)
  openai-compatible/MODEL@BASE_URL   vLLM, SGLang, Ollama, llama.cpp server...
                                     (`;key_env=VAR` names the key's env variable)
  anthropic/MODEL                    Anthropic (key from ANTHROPIC_API_KEY;
                                     `;base_url=URL` for a proxy or gateway)
  scripted:["a", "b"]                test double answering from a JSON list
  scripted:FILE.json                 test double answering from a JSON list in a file
  scripted:module:function           test double answering from a Python callable
  replay:CASSETTE                    serves a cassette recorded with --record
Any form may carry `;price_in=X;price_out=Y` (dollars per million tokens), among its
other options in any order (a scripted or replay spec at its end): the cost accounting
reads them and they attach to the model id (tether.models.pricing).
"""

from __future__ import annotations

import importlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.errors import ConfigError
from tether.models.base import Model
from tether.models.errors import UnknownModelError
from tether.models.pricing import model_id_of, split_price
from tether.specs import parse_spec
from tether.textio import JSONError, loads

DEFAULT_MODEL = "local/smollm2-135m"


@dataclass(frozen=True)
class SpecForm:
    pattern: str
    description: str
    needs: str


SPEC_FORMS = (
    SpecForm("local/smollm2-135m", "embedded SmolLM2-135M-Instruct via llama.cpp (default)",
             "extra 'local'"),
    SpecForm("local/PATH.gguf", "any GGUF file via llama.cpp in-process", "extra 'local'"),
    SpecForm("openai/MODEL", "OpenAI chat completions, native tool calls", "OPENAI_API_KEY"),
    SpecForm("openai-compatible/MODEL@BASE_URL", "vLLM, SGLang, Ollama, llama.cpp server; "
             "native tool calls where the server has them", "a running server; ;key_env=VAR "
             "for a key"),
    SpecForm("anthropic/MODEL", "Anthropic messages, extended thinking, native tool calls",
             "ANTHROPIC_API_KEY, extra 'anthropic'; ;base_url=URL for a proxy"),
    SpecForm("scripted:[...] | scripted:FILE.json | scripted:mod:fn", "TEST DOUBLE: fixed "
             "responses", "nothing"),
    SpecForm("replay:CASSETTE", "serves a recorded cassette, fails on unseen requests",
             "a cassette from --record"),
)

_HINT = "known forms: " + ", ".join(f.pattern for f in SPEC_FORMS) + " (tether models list)"

_NUMERIC = {"concurrency": int, "timeout_s": float, "deadline_s": float, "n_ctx": int,
            "n_threads": int}
#: the smallest value each numeric option takes (0 concurrency would wait forever, a
#: timeout of 0 or less fails every call, n_ctx below 16 cannot hold a prompt)
_MINIMUM: dict[str, tuple[float, str]] = {
    "concurrency": (1, ">= 1"), "n_threads": (1, ">= 1"), "n_ctx": (16, ">= 16")}


def _split_options(spec: str) -> tuple[str, dict[str, object]]:
    try:
        head, parsed = parse_spec(spec, what="model spec")
    except ConfigError as exc:
        raise UnknownModelError(str(exc), hint=exc.hint) from None
    return head, {key: _typed(spec, key, value) for key, value in parsed.items()}


def _typed(spec: str, key: str, value: Any) -> object:
    """A model option as its backend takes it, from the shared parser's JSON-or-text."""
    if key == "reasoning":
        return str(value).lower() in ("1", "true", "yes")
    cast = _NUMERIC.get(key)
    if cast is None:
        # text options (key_env, base_url) keep what was written, even if it reads as JSON
        return value if isinstance(value, str) else json.dumps(value)
    number: int | float | None = None
    if isinstance(value, str):
        try:
            number = cast(value)  # e.g. "04", which JSON does not read as a number
        except ValueError:
            pass
    elif not isinstance(value, bool) and isinstance(value, int | float) and (
            cast is float or isinstance(value, int)):
        number = cast(value)
    if number is None:
        kind = "an integer" if cast is int else "a number"
        raise UnknownModelError(f"option {key} in {spec!r} must be {kind}")
    return _in_range(spec, key, number)


def _in_range(spec: str, key: str, number: int | float) -> int | float:
    if key in ("timeout_s", "deadline_s"):
        if not (number > 0 and math.isfinite(number)):
            raise UnknownModelError(f"option {key} in {spec!r} must be a finite number "
                                    f"of seconds > 0, not {number}")
        return number
    low, rule = _MINIMUM[key]
    if number < low:
        raise UnknownModelError(f"option {key} in {spec!r} must be {rule}, not {number}")
    return number


def _allow(spec: str, options: dict[str, object], allowed: set[str]) -> None:
    extra = set(options) - allowed
    if extra:
        raise UnknownModelError(
            f"model spec {spec!r}: unknown option(s) {sorted(extra)}; allowed: {sorted(allowed)}"
        )


#: The test doubles live in tether.testing, above the kernel: the `scripted:` spec is the
#: door to them, by module name, so no kernel module imports a double.
SCRIPTED_MODELS = "tether.testing.scripted_models"


def _scripted(spec: str, body: str) -> Model:
    ScriptedModel = importlib.import_module(SCRIPTED_MODELS).ScriptedModel  # noqa: N806

    if body.lstrip().startswith("["):
        try:
            return ScriptedModel(loads(body), model_id=model_id_of(spec))
        except JSONError as exc:
            raise UnknownModelError(f"scripted spec is not a JSON list: {exc}") from None
    if body.endswith(".json"):
        path = Path(body)
        if not path.is_file():
            raise UnknownModelError(f"scripted responses file not found: {path}")
        try:
            data = loads(path.read_bytes())
        except (OSError, JSONError) as exc:
            raise UnknownModelError(f"scripted responses file {path}: {exc}") from None
        if not isinstance(data, list):
            raise UnknownModelError(f"{path} must hold a JSON list of responses")
        return ScriptedModel(data, model_id=spec)
    module, sep, attr = body.rpartition(":")
    if not sep:
        raise UnknownModelError(f"bad scripted spec {spec!r}", hint=_HINT)
    try:
        fn = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise UnknownModelError(f"scripted callable {body!r} not importable: {exc}") from None
    return ScriptedModel(fn, model_id=spec)


#: provider -> (module, class) of the backend its specs build (spec_accepts_images)
_BACKENDS = {
    "openai": ("tether.models.openai_backend", "OpenAICompatibleModel"),
    "openai-compatible": ("tether.models.openai_backend", "OpenAICompatibleModel"),
    "anthropic": ("tether.models.anthropic_backend", "AnthropicModel"),
    "local": ("tether.models.local", "LocalLlamaModel"),
}


def spec_accepts_images(spec: str) -> bool | None:
    """What `accepts_images` will say of the model `spec` names, read off its backend's
    class without building it (building one may load an SDK: the openai SDK's import is
    most of a run's start); None when only the built model can tell (a scripted double
    says it per instance, a replay takes it from its recording) or the spec is bad."""
    spec = spec.strip()
    if spec.startswith(("scripted:", "replay:")):
        return None
    try:
        head = _split_options(split_price(spec)[0])[0]
    except ConfigError:  # a bad spec: parse_model says what is wrong with it
        return None
    found = _BACKENDS.get(head.partition("/")[0])
    if found is None:
        return None
    module, name = found
    return bool(getattr(getattr(importlib.import_module(module), name), "accepts_images", True))


def parse_model(spec: str) -> Model:
    """Build the model a spec names; raises UnknownModelError with a hint otherwise.

    `;price_in=`/`;price_out=` options (tether.models.pricing) are read by the cost
    accounting, never by a backend: they are taken off first, wherever they stand."""
    try:
        spec, _ = split_price(spec)
    except ConfigError as exc:
        raise UnknownModelError(str(exc), hint=exc.hint) from None
    if spec.startswith("scripted:"):
        return _scripted(spec, spec.removeprefix("scripted:"))
    if spec.startswith("replay:"):
        from tether.models.cache import ReplayModel

        return ReplayModel(spec.removeprefix("replay:"))
    head, options = _split_options(spec)
    provider, sep, rest = head.partition("/")
    if not sep or not rest:
        raise UnknownModelError(f"unknown model spec {spec!r}", hint=_HINT)
    if provider == "local":
        from tether.models.local import DEFAULT_LOCAL, LocalLlamaModel

        _allow(spec, options, {"n_ctx", "n_threads"})
        if rest == DEFAULT_LOCAL:
            # _allow checked the option names against the backend's keywords; values are parsed
            return LocalLlamaModel(None, spec=head, **options)  # type: ignore[arg-type]
        if rest.endswith(".gguf"):
            # as above: names checked by _allow
            return LocalLlamaModel(Path(rest), spec=head, **options)  # type: ignore[arg-type]
        raise UnknownModelError(
            f"unknown local model {rest!r}: use local/{DEFAULT_LOCAL} or local/PATH.gguf"
        )
    if provider == "openai":
        from tether.models.openai_backend import OpenAICompatibleModel

        _allow(spec, options, {"concurrency", "timeout_s", "deadline_s", "reasoning",
                               "key_env", "effort"})
        # _allow checked the option names against the backend's keywords; values are parsed
        return OpenAICompatibleModel(rest, spec=head, **options)  # type: ignore[arg-type]
    if provider == "openai-compatible":
        from tether.models.openai_backend import OpenAICompatibleModel

        model, at, base_url = rest.rpartition("@")
        if not at or not model or not base_url.startswith(("http://", "https://")):
            raise UnknownModelError(
                f"bad spec {spec!r}: expected openai-compatible/MODEL@http://HOST:PORT/v1"
            )
        _allow(spec, options, {"concurrency", "timeout_s", "deadline_s", "reasoning",
                               "key_env", "effort"})
        options.setdefault("key_env", None)
        # _allow checked the option names against the backend's keywords; values are parsed
        return OpenAICompatibleModel(model, base_url=base_url, spec=head, **options)  # type: ignore[arg-type]
    if provider == "anthropic":
        from tether.models.anthropic_backend import AnthropicModel

        _allow(spec, options, {"concurrency", "timeout_s", "deadline_s", "key_env", "base_url"})
        # _allow checked the option names against the backend's keywords; values are parsed
        return AnthropicModel(rest, **options)  # type: ignore[arg-type]
    raise UnknownModelError(f"unknown model provider {provider!r} in {spec!r}", hint=_HINT)
