"""Model access: one protocol, several backends, a cache, and a spec registry.

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.models.anthropic_backend import AnthropicModel as AnthropicModel
    from tether.models.base import (
        DEFAULT_PARAMS as DEFAULT_PARAMS,
        Completion as Completion,
        GenerateKwargs as GenerateKwargs,
        GenerateParams as GenerateParams,
        Message as Message,
        Model as Model,
        SampledModel as SampledModel,
        ToolCall as ToolCall,
        Usage as Usage,
        accepts_images as accepts_images,
        function_tool as function_tool,
        png_data_url as png_data_url,
        request_key as request_key,
        supports_tools as supports_tools,
        text_of as text_of,
        wrapped_traits as wrapped_traits,
    )
    from tether.models.cache import (
        CACHE_MODES as CACHE_MODES,
        CachedModel as CachedModel,
        ReplayModel as ReplayModel,
        ResponseStore as ResponseStore,
        with_cache as with_cache,
    )
    from tether.models.errors import (
        AuthenticationError as AuthenticationError,
        CertificateRefused as CertificateRefused,
        ContextLengthExceeded as ContextLengthExceeded,
        EndpointUnreachable as EndpointUnreachable,
        ModelError as ModelError,
        RateLimited as RateLimited,
        ReplayMiss as ReplayMiss,
        ServerError as ServerError,
        UnknownModelError as UnknownModelError,
    )
    from tether.models.fanout import sample_concurrency as sample_concurrency
    from tether.models.pricing import (
        Price as Price,
        PriceBook as PriceBook,
        load_price_table as load_price_table,
        model_id_of as model_id_of,
        split_price as split_price,
        table_from_dict as table_from_dict,
    )
    from tether.models.recording import (
        CallRecord as CallRecord,
        RecordingModel as RecordingModel,
        total_usage as total_usage,
    )
    from tether.models.registry import (
        DEFAULT_MODEL as DEFAULT_MODEL,
        SPEC_FORMS as SPEC_FORMS,
        parse_model as parse_model,
        spec_accepts_images as spec_accepts_images,
    )
    from tether.models.replies import (
        NoJSONError as NoJSONError,
        first_json as first_json,
        json_object as json_object,
        strip_private_reasoning as strip_private_reasoning,
    )
    from tether.models.retry import RetryPolicy as RetryPolicy
    from tether.models.usage_check import (
        CheckedUsage as CheckedUsage,
        check_usage as check_usage,
        estimate_input_tokens as estimate_input_tokens,
    )

_HOMES: dict[str, str] = {
    "AnthropicModel": "tether.models.anthropic_backend",
    "AuthenticationError": "tether.models.errors",
    "CACHE_MODES": "tether.models.cache",
    "CachedModel": "tether.models.cache",
    "CallRecord": "tether.models.recording",
    "CertificateRefused": "tether.models.errors",
    "CheckedUsage": "tether.models.usage_check",
    "Completion": "tether.models.base",
    "ContextLengthExceeded": "tether.models.errors",
    "DEFAULT_MODEL": "tether.models.registry",
    "DEFAULT_PARAMS": "tether.models.base",
    "EndpointUnreachable": "tether.models.errors",
    "GenerateKwargs": "tether.models.base",
    "GenerateParams": "tether.models.base",
    "Message": "tether.models.base",
    "Model": "tether.models.base",
    "ModelError": "tether.models.errors",
    "NoJSONError": "tether.models.replies",
    "Price": "tether.models.pricing",
    "PriceBook": "tether.models.pricing",
    "RateLimited": "tether.models.errors",
    "RecordingModel": "tether.models.recording",
    "ReplayMiss": "tether.models.errors",
    "ReplayModel": "tether.models.cache",
    "ResponseStore": "tether.models.cache",
    "RetryPolicy": "tether.models.retry",
    "SPEC_FORMS": "tether.models.registry",
    "SampledModel": "tether.models.base",
    "ServerError": "tether.models.errors",
    "ToolCall": "tether.models.base",
    "UnknownModelError": "tether.models.errors",
    "Usage": "tether.models.base",
    "accepts_images": "tether.models.base",
    "check_usage": "tether.models.usage_check",
    "first_json": "tether.models.replies",
    "estimate_input_tokens": "tether.models.usage_check",
    "function_tool": "tether.models.base",
    "json_object": "tether.models.replies",
    "load_price_table": "tether.models.pricing",
    "parse_model": "tether.models.registry",
    "spec_accepts_images": "tether.models.registry",
    "png_data_url": "tether.models.base",
    "request_key": "tether.models.base",
    "sample_concurrency": "tether.models.fanout",
    "model_id_of": "tether.models.pricing",
    "split_price": "tether.models.pricing",
    "strip_private_reasoning": "tether.models.replies",
    "supports_tools": "tether.models.base",
    "table_from_dict": "tether.models.pricing",
    "text_of": "tether.models.base",
    "total_usage": "tether.models.recording",
    "with_cache": "tether.models.cache",
    "wrapped_traits": "tether.models.base",
}
__all__ = [
    "AnthropicModel",
    "AuthenticationError",
    "CACHE_MODES",
    "CachedModel",
    "CallRecord",
    "CertificateRefused",
    "CheckedUsage",
    "Completion",
    "ContextLengthExceeded",
    "DEFAULT_MODEL",
    "DEFAULT_PARAMS",
    "EndpointUnreachable",
    "GenerateKwargs",
    "GenerateParams",
    "Message",
    "Model",
    "ModelError",
    "NoJSONError",
    "Price",
    "PriceBook",
    "RateLimited",
    "RecordingModel",
    "ReplayMiss",
    "ReplayModel",
    "ResponseStore",
    "RetryPolicy",
    "SPEC_FORMS",
    "SampledModel",
    "ServerError",
    "ToolCall",
    "UnknownModelError",
    "Usage",
    "accepts_images",
    "check_usage",
    "estimate_input_tokens",
    "first_json",
    "function_tool",
    "json_object",
    "load_price_table",
    "parse_model",
    "spec_accepts_images",
    "png_data_url",
    "request_key",
    "sample_concurrency",
    "model_id_of",
    "split_price",
    "strip_private_reasoning",
    "supports_tools",
    "table_from_dict",
    "text_of",
    "total_usage",
    "with_cache",
    "wrapped_traits",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
