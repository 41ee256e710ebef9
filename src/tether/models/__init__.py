"""Model access: one protocol, several backends, a cache, and a spec registry."""

from tether.models.base import Completion, GenerateParams, Message, Model, Usage, request_key
from tether.models.cache import CACHE_MODES, CachedModel, ReplayModel, ResponseStore, with_cache
from tether.models.errors import (
    AuthenticationError,
    ContextLengthExceeded,
    EndpointUnreachable,
    ModelError,
    RateLimited,
    ReplayMiss,
    ServerError,
    UnknownModelError,
)
from tether.models.recording import CallRecord, RecordingModel, total_usage
from tether.models.registry import DEFAULT_MODEL, SPEC_FORMS, parse_model
from tether.models.retry import RetryPolicy
from tether.models.scripted import CallInfo, ScriptedModel

__all__ = [
    "Completion", "GenerateParams", "Message", "Model", "Usage", "request_key",
    "CACHE_MODES", "CachedModel", "ReplayModel", "ResponseStore", "with_cache",
    "AuthenticationError", "ContextLengthExceeded", "EndpointUnreachable", "ModelError",
    "RateLimited", "ReplayMiss", "ServerError", "UnknownModelError",
    "CallRecord", "RecordingModel", "total_usage",
    "DEFAULT_MODEL", "SPEC_FORMS", "parse_model", "RetryPolicy", "CallInfo", "ScriptedModel",
]
