"""Schemathesis hooks for the pet store (loaded with SCHEMATHESIS_HOOKS=petstore_hooks).

GraphQL: ids and categoryIds use the SafeInt scalar (integers within +/-(2^53-1)); deliberate
errors come back in `errors` with an `extensions.code`, so instead of failing on any `errors`
array (Schemathesis' default for GraphQL), the check below fails on what must never happen: a
5xx, an error without a code, or an internal error.
"""

import schemathesis
from hypothesis import strategies as st
from schemathesis.graphql import nodes

SAFE = 2**53 - 1
schemathesis.graphql.scalar("SafeInt", st.integers(min_value=-SAFE, max_value=SAFE).map(nodes.Int))


@schemathesis.check
def graphql_errors_are_deliberate(ctx, response, case):
    if response.status_code >= 500:
        raise AssertionError(f"server error {response.status_code}: {response.text[:500]}")
    if "graphql" not in case.path:
        return None
    body = response.json()
    for error in body.get("errors") or []:
        code = (error.get("extensions") or {}).get("code")
        if code is None or code in ("internal_error", "INTERNAL_SERVER_ERROR"):
            raise AssertionError(f"undeliberate GraphQL error: {error}")
    return None


# Positions a client sends back (X-Min-Position, Last-Event-ID, the audit feed's `after`, `asOf`
# as a store position) take positions the server gave: a made-up one past the store's last event
# is refused with 400 by design. The run's store holds position 1 (its key); malformed ones are
# left for the server to refuse.
GIVEN_POSITION = "1"


@schemathesis.hook("map_headers")
def positions_the_server_gave(ctx, headers):
    for name in ("X-Min-Position", "Last-Event-ID"):
        if headers and name in headers and str(headers[name]).isdigit():
            headers[name] = GIVEN_POSITION
    return headers


@schemathesis.hook("map_query")
def positions_the_server_gave_in_queries(ctx, query):
    if not query:
        return query
    if str(query.get("asOf", "")).isdigit():
        query["asOf"] = GIVEN_POSITION
    if (ctx.operation.path == "/audit/events" or ctx.operation.path.endswith("/changes")) and str(
        query.get("after", "")
    ).isdigit():
        query["after"] = GIVEN_POSITION
    return query
