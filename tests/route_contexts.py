"""Each route's request handling built once per test run, not once per app.

FastAPI builds what a route needs to serve a request (its dependency tree, the validators of its parameters,
body and response) lazily, the first time a request is matched against it, and keeps it on the app that
included the route. A test builds an app of its own (about 3,000 in a run), so every test paid that build again
for every route its first request was matched against: about 170 ms, the largest share of most API tests. Every
app includes the same routers the same way (``local_backend.app.create_app``: no prefix, tags or dependencies
at the include, no dependency overrides), so what FastAPI builds for a route is the same in each: this keeps
the first one built for a (route, router, include) and hands it to every later app.
"""

from __future__ import annotations

from typing import Any

from fastapi import routing

_built: dict[tuple[int, ...], tuple[Any, Any]] = {}


def share_route_contexts() -> None:
    """Memoise FastAPI's per-include route context (idempotent)."""
    context_class = routing._EffectiveRouteContext
    if getattr(context_class, "_shared_across_apps", False):
        return
    build = context_class.from_api_route.__func__

    def from_api_route(cls: type, *, original_route: Any, include_context: Any) -> Any:
        plain = not (include_context.tags or include_context.dependencies or include_context.callbacks)
        provider = include_context.dependency_overrides_provider
        if not plain or getattr(provider, "dependency_overrides", None):
            return build(cls, original_route=original_route, include_context=include_context)
        key = (
            id(original_route),
            id(include_context.included_router),
            hash(include_context.prefix),
            hash(include_context.max_body_size),
            hash(repr(sorted(include_context.responses.items(), key=str))),
        )
        found = _built.get(key)
        if found is not None and found[0] is original_route:
            return found[1]
        context = build(cls, original_route=original_route, include_context=include_context)
        _built[key] = (original_route, context)
        return context

    context_class.from_api_route = classmethod(from_api_route)
    context_class._shared_across_apps = True
