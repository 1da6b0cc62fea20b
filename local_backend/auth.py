"""Personal API keys, scopes and project access.

A request names its key in the ``Authorization: Bearer`` header, the body field ``personal_api_key`` or the
query parameter of that name; only the first one present is tried. Routes declare what they need with
:func:`project_access` (project-scoped routes) or :func:`key_access` (the rest); the checks run in this order:
key present and valid, project exists, key allowed on the project, key has the scope.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fastapi import Depends, Request

from .errors import AuthenticationFailed, NotAuthenticated, NotFound, PermissionDenied
from .store.accounts import find_personal_api_key, get_user
from .store.ids import parse_id
from .store.projects import get_project
from .web.deps import get_conn

__all__ = [
    "Caller",
    "ProjectAccess",
    "key_access",
    "project_access",
    "CURRENT_PROJECT",
]

CURRENT_PROJECT = "@current"
_BEARER = re.compile(r"^Bearer\s+(\S.+)$")


@dataclass(frozen=True)
class Caller:
    """The user behind a valid personal API key, with what the key allows."""

    user: dict[str, Any]
    key_id: int
    scopes: frozenset[str]
    scoped_projects: tuple[int, ...] | None

    def has_scope(self, scope: str) -> bool:
        if "*" in self.scopes or scope in self.scopes:
            return True
        obj, _, action = scope.partition(":")
        return action == "read" and f"{obj}:write" in self.scopes

    def require_scope(self, scope: str) -> None:
        if not self.has_scope(scope):
            raise PermissionDenied(f"API key missing required scope '{scope}'")

    def may_use_project(self, project_id: int) -> bool:
        return self.scoped_projects is None or project_id in self.scoped_projects


@dataclass(frozen=True)
class ProjectAccess:
    caller: Caller
    project: dict[str, Any]
    # Set when the request came with a sharing token instead of a key: only this insight may be read.
    shared_insight_id: int | None = None

    @property
    def project_id(self) -> int:
        return int(self.project["id"])

    @property
    def user_id(self) -> int | None:
        """The key owner's id; None for a sharing-token viewer."""
        user_id = self.caller.user["id"]
        return int(user_id) if user_id is not None else None


async def _find_raw_key(request: Request) -> tuple[str, str] | None:
    """(key, where it was found) for the first place that carries one."""
    header = request.headers.get("authorization")
    if header:
        match = _BEARER.match(header.strip())
        if match and not match.group(1).startswith("pha_"):
            return match.group(1).strip(), "Authorization header"
    if request.method in ("POST", "PUT", "PATCH") and "json" in request.headers.get("content-type", ""):
        try:
            body = json.loads(await request.body() or b"null")
        except (ValueError, RecursionError):  # the route reports an unreadable body; here it just holds no key
            body = None
        if isinstance(body, dict) and isinstance(body.get("personal_api_key"), str):
            return body["personal_api_key"], "body"
    query_key = request.query_params.get("personal_api_key")
    if query_key:
        return query_key, "query string"
    return None


def _authenticate(conn: sqlite3.Connection, found: tuple[str, str] | None, missing_status: int) -> Caller:
    if found is None:
        raise NotAuthenticated(status=missing_status)
    raw, source = found
    key = find_personal_api_key(conn, raw)
    user = get_user(conn, key["user_id"]) if key else None
    if key is None or user is None:
        raise AuthenticationFailed(f"Personal API key found in request {source} is invalid.", status=missing_status)
    return Caller(
        user=user,
        key_id=key["id"],
        scopes=frozenset(key["scopes"]),
        scoped_projects=tuple(key["scoped_projects"]) if key["scoped_projects"] else None,
    )


def _resolve_project(conn: sqlite3.Connection, caller: Caller, project_id: str) -> dict[str, Any]:
    if project_id == CURRENT_PROJECT:
        wanted = caller.user.get("current_project_id")
        if wanted is None and caller.scoped_projects:
            wanted = caller.scoped_projects[0]
        if wanted is None:
            row = conn.execute("SELECT min(id) FROM projects").fetchone()
            wanted = row[0]
    else:
        wanted = parse_id(project_id)
    project = get_project(conn, int(wanted)) if wanted is not None else None
    if project is None:
        raise NotFound("Project not found.")
    if not caller.may_use_project(project["id"]):
        raise PermissionDenied(f"API key does not have access to the requested project: ID {project['id']}.")
    return project


SHARING_TOKEN_PARAM = "sharing_access_token"


def _sharing_access(conn: sqlite3.Connection, request: Request, project_id: str, token: str) -> ProjectAccess:
    """Read access to the one insight a sharing token was issued for (GET only)."""
    if request.method not in ("GET", "HEAD"):
        raise AuthenticationFailed("Sharing access token can only be used for GET requests.", status=403)
    row = conn.execute(
        "SELECT s.project_id, s.insight_id FROM sharing_configurations s JOIN insights i ON i.id = s.insight_id"
        " WHERE s.access_token = ? AND s.enabled = 1 AND i.deleted = 0",
        (token,),
    ).fetchone()
    if row is None or project_id not in (str(row["project_id"]), CURRENT_PROJECT):
        raise AuthenticationFailed("Sharing access token is invalid.", status=403)
    project = get_project(conn, int(row["project_id"]))
    assert project is not None
    viewer = Caller(
        user={"id": None},
        key_id=0,
        scopes=frozenset({"insight:read"}),
        scoped_projects=(int(row["project_id"]),),
    )
    return ProjectAccess(caller=viewer, project=project, shared_insight_id=int(row["insight_id"]))


def key_access(scope: str, *, missing_status: int = 401) -> Callable[..., Awaitable[Caller]]:
    """Dependency for routes outside a project: a valid key with ``scope``."""

    async def dependency(request: Request, conn: sqlite3.Connection = Depends(get_conn)) -> Caller:
        caller = _authenticate(conn, await _find_raw_key(request), missing_status)
        caller.require_scope(scope)
        return caller

    dependency.__doc__ = f"Requires a personal API key with scope `{scope}`."
    return dependency


def project_access(
    scope: str, *, missing_status: int = 401, allow_sharing_token: bool = False
) -> Callable[..., Awaitable[ProjectAccess]]:
    """Dependency for routes under ``/api/projects/{project_id}/``: a valid key, allowed on the project,
    with ``scope``. With ``allow_sharing_token``, ``?sharing_access_token=`` instead grants reading the one
    insight the token was issued for (GET only)."""

    async def dependency(
        request: Request, project_id: str, conn: sqlite3.Connection = Depends(get_conn)
    ) -> ProjectAccess:
        token = request.query_params.get(SHARING_TOKEN_PARAM)
        if token is not None and allow_sharing_token:
            return _sharing_access(conn, request, project_id, token)
        caller = _authenticate(conn, await _find_raw_key(request), missing_status)
        project = _resolve_project(conn, caller, project_id)
        caller.require_scope(scope)
        return ProjectAccess(caller=caller, project=project)

    dependency.__doc__ = f"Requires a personal API key with scope `{scope}` on the project."
    return dependency
