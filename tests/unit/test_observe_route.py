"""The observe links go through the route table (issue 34): one handover route whose endpoint
owns the connection, matched for every method (it answers a wrong one itself, as text) and for
every path under /observe/, slashes and all (noVNC's files sit in folders)."""

from __future__ import annotations

import pytest

from clawd import errors
from clawd.sandbox import observe_http
from clawd.server.routes import ROUTES
from clawd.server.routing import Router, route


def test_every_observe_path_is_the_tables_handover_route_to_observe_http():
    found, params = Router(ROUTES).match("GET", "/observe/TOKEN/novnc/core/rfb.js")
    assert (found.endpoint, found.handover, found.tool) == (observe_http.serve, True, None)
    assert params == {"link": "TOKEN/novnc/core/rfb.js"}
    assert Router(ROUTES).match("GET", "/observe/")[0] is found  # answered 403 by the link


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_a_handover_route_takes_every_method_so_its_endpoint_answers_it(method):
    found, _ = Router(ROUTES).match(method, "/observe/TOKEN/frames")
    assert found.endpoint is observe_http.serve


def test_a_rest_parameter_is_only_the_last_and_other_routes_keep_their_methods():
    table = Router([route("GET", "/files/{name}", print), route("GET", "/all/{rest*}", print)])
    assert table.match("GET", "/all/a/b")[1] == {"rest": "a/b"}
    with pytest.raises(errors.RouteNotFound):
        table.match("GET", "/files/a/b")  # one segment: a plain parameter takes no slash
    with pytest.raises(errors.MethodNotAllowed):
        table.match("POST", "/files/a")
