"""HogQL SQL (PostHog's ``HogQLQuery``): the engine-free part, parse, check, rewrite and type."""

from .hogql_query import read_hogql_node, run_hogql_query

__all__ = ["read_hogql_node", "run_hogql_query"]
