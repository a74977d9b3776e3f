"""Route building and matching without a browser: which requests a route answers, how `times`
uses it up, the Fetch patterns that pause no less than it matches, and the 400s of bad fields."""

from __future__ import annotations

import pytest

from clawd import errors
from clawd.page.observe import routes


def built(tmp_path, **fields):
    return routes.build({"action": "fulfill", **fields}, tmp_path)


def test_glob_star_stays_in_a_segment_and_double_star_crosses(tmp_path):
    route = built(tmp_path, url="**/api/*")
    assert route.matches("http://a.test/v1/api/items", "GET", "Fetch")
    assert not route.matches("http://a.test/api/v1/items", "GET", "Fetch")


def test_resource_type_and_method_narrow_the_match(tmp_path):
    route = built(tmp_path, url="items", resourceType="script", method="post")
    assert route.resource_type == "Script" and route.method == "POST"
    assert route.matches("http://a.test/items.js", "post", "Script")
    assert not route.matches("http://a.test/items.js", "GET", "Script")
    assert not route.matches("http://a.test/items.js", "POST", "Image")


def test_fetch_and_xhr_match_each_other(tmp_path):
    """Chromium's Fetch domain calls a fetch() request XHR."""
    route = built(tmp_path, url="**", resourceType="Fetch")
    assert route.matches("http://a.test/x", "GET", "XHR")
    assert "resourceType" not in route.fetch_pattern()


@pytest.mark.parametrize(
    "glob, url",
    [
        ("**/api?x=1", "http://a.test/api?x=1"),
        ("data", "http://a.test/some/data.json"),
        ("http://a.test/*/b", "http://a.test/a/b"),
    ],
)
def test_fetch_pattern_pauses_every_url_the_glob_matches(tmp_path, glob, url):
    import fnmatch

    route = built(tmp_path, url=glob)
    assert route.matches(url, "GET", "Fetch")
    cdp = route.fetch_pattern()["urlPattern"].replace("\\?", "[?]")  # CDP's escape, fnmatch's
    assert fnmatch.fnmatchcase(url, cdp)


def test_newest_route_answers_and_times_uses_it_up(tmp_path):
    table = routes.RouteTable()
    old = table.add(built(tmp_path, url="**", body="old"))
    new = table.add(built(tmp_path, url="**", body="new", times=2))
    assert table.take("http://a.test/", "GET", "Document") == (new, False)
    assert table.take("http://a.test/", "GET", "Document") == (new, True)
    assert table.take("http://a.test/", "GET", "Document") == (old, False)
    assert [r.route_id for r in table.routes()] == [old.route_id]


def test_removing_an_unknown_route_is_404():
    with pytest.raises(errors.NetworkRouteNotFound):
        routes.RouteTable().remove("r9")


def test_fulfill_defaults_its_content_type_from_the_body_file(tmp_path):
    (tmp_path / "page.html").write_text("<p>hi</p>")
    route = built(tmp_path, url="**", bodyPath="page.html")
    assert route.body == b"<p>hi</p>" and route.headers == {"Content-Type": "text/html"}
    assert built(tmp_path, url="**", body="x").headers["Content-Type"].startswith("text/plain")


def test_body_path_is_confined_to_the_uploads_directory(tmp_path):
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    (tmp_path / "auth-token").write_text("secret")
    (uploads / "link").symlink_to(tmp_path / "auth-token")
    for path in ("../auth-token", str(tmp_path / "auth-token"), "link"):
        with pytest.raises(errors.InvalidPath, match="bodyPath"):
            routes.build({"action": "fulfill", "url": "**", "bodyPath": path}, uploads)


@pytest.mark.parametrize(
    "fields, named",
    [
        ({"url": "", "action": "abort"}, "url"),
        ({"url": "**/a\nb", "action": "abort"}, "url"),
        ({"url": "***", "action": "abort"}, "url"),
        ({"url": "**", "action": "abort", "status": 404}, "status"),
        ({"url": "**", "action": "continue", "body": "x"}, "body"),
        ({"url": "**", "action": "fulfill", "rewriteUrl": "http://a.test/"}, "rewriteUrl"),
        ({"url": "**", "action": "abort", "headers": {"A": "b"}}, "headers"),
        ({"url": "**", "action": "fulfill", "body": "x", "bodyPath": "y"}, "bodyPath"),
        ({"url": "**", "action": "fulfill", "headers": {"Bad Name": "x"}}, "headers"),
        ({"url": "**", "action": "fulfill", "headers": {"A": "x\r\nB: y"}}, "headers"),
        ({"url": "**", "action": "fulfill", "method": "GE T"}, "method"),
    ],
)
def test_bad_route_fields_are_400s_naming_the_field(tmp_path, fields, named):
    with pytest.raises(errors.InvalidRequest) as caught:
        routes.build(fields, tmp_path)
    assert named in caught.value.message
