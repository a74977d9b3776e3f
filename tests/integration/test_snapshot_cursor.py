"""A snapshot cut at maxChars answers `next`, a cursor whose pages, read in turn, are the whole
snapshot with the same refs; a cursor of a replaced snapshot or a changed document answers 409
SNAPSHOT_STALE, a malformed or foreign one 400 (docs/snapshot.md, "Pages of a long snapshot")."""

from __future__ import annotations

import re

import pytest

from clawd import errors
from clawd.agent.tool import BrowserTool
from clawd.page.snapshot import ariatext
from tests.support.cli import cli_of

MAX = 2000


def snap(client, tab, **params) -> dict:
    return client.request("GET", "/snapshot", params={"targetId": tab["tabId"], **params})


def refused(client, tab, **params) -> errors.ClawdError:
    with pytest.raises(errors.ClawdError) as caught:
        snap(client, tab, **params)
    return caught.value


def walk(client, tab, first: dict) -> list[dict]:
    """Every page of a truncated snapshot, following `next` (bounded: a cursor must move on)."""
    pages = [first]
    while "next" in pages[-1]:
        assert len(pages) < 100, "the cursor walk does not end"
        pages.append(snap(client, tab, cursor=pages[-1]["next"]))
    return pages


def body(page: dict) -> str:
    text = page["snapshot"]
    return text[: -len(ariatext.TRUNCATION_MARKER)] if page.get("truncated") else text


def test_the_pages_of_a_truncated_snapshot_are_the_whole_snapshot_with_its_refs(client, site, tab):
    client.navigate(site.url("/snapshot/long.html"), target_id=tab["tabId"])
    whole = snap(client, tab, maxChars=0)
    assert len(whole["snapshot"]) > 5 * MAX and "truncated" not in whole
    first = snap(client, tab, maxChars=MAX)
    assert first["truncated"] and first["next"], first.keys()
    pages = walk(client, tab, first)
    assert len(pages) >= 5
    assert all(len(page["snapshot"]) <= MAX for page in pages)
    joined = "\n".join(body(page) for page in pages)
    assert unref(joined) == unref(whole["snapshot"])
    assert "truncated" not in pages[-1] and "next" not in pages[-1]
    refs = {}
    for page in pages:
        assert set(page["refs"]) == ariatext.refs_in(page["snapshot"])
        refs.update(page["refs"])
    assert sorted(map(str, refs.values())) == sorted(map(str, whole["refs"].values()))
    # a ref of the last page acts: it is the same snapshot's
    last_button = next(r for r, i in pages[-1]["refs"].items() if i["name"] == "Cancel 240")
    client.act("click", ref=last_button, target_id=tab["tabId"])
    assert client.evaluate("() => document.title", target_id=tab["tabId"])["result"] == "Cancel 240"


def unref(text: str) -> str:
    """The text without its ref numbers (each snapshot may mint its own)."""
    return ariatext._REF.sub("[ref]", text)


def test_a_smaller_maxchars_on_the_cursor_cuts_that_page_smaller(client, site, tab):
    client.navigate(site.url("/snapshot/long.html"), target_id=tab["tabId"])
    first = snap(client, tab, maxChars=MAX)
    second = snap(client, tab, cursor=first["next"], maxChars=500)
    assert len(second["snapshot"]) <= 500 and second["next"] != first["next"]


def test_a_cursor_after_a_newer_snapshot_or_a_navigation_is_snapshot_stale(client, site, tab):
    client.navigate(site.url("/snapshot/long.html"), target_id=tab["tabId"])
    first = snap(client, tab, maxChars=MAX)
    snap(client, tab)  # a newer snapshot replaces its refs
    error = refused(client, tab, cursor=first["next"])
    assert error.code == "SNAPSHOT_STALE" and error.http_status == 409, error
    first = snap(client, tab, maxChars=MAX)
    assert snap(client, tab, cursor=first["next"])["snapshot"]
    client.navigate(site.url("/snapshot/long.html"), target_id=tab["tabId"])  # a new document
    error = refused(client, tab, cursor=first["next"])
    assert error.code == "SNAPSHOT_STALE" and "document changed" in error.message, error


@pytest.mark.parametrize("cursor", ["!!", "e30", "bm90IGpzb24", "WzEsMiwzXQ", "WyJ4IiwtMSwwXQ"])
def test_a_malformed_cursor_is_400_naming_the_cursor(client, site, tab, cursor):
    client.navigate(site.url("/snapshot/long.html"), target_id=tab["tabId"])
    snap(client, tab, maxChars=MAX)
    error = refused(client, tab, cursor=cursor)
    assert error.code == "INVALID_REQUEST" and "not a snapshot cursor" in error.message, error


def test_a_cursor_of_another_tab_is_400(client, site, tab):
    from tests.support.tabs import opened_tab

    client.navigate(site.url("/snapshot/long.html"), target_id=tab["tabId"])
    first = snap(client, tab, maxChars=MAX)
    with opened_tab(client, site.url("/snapshot/long.html")) as other:
        snap(client, other, maxChars=MAX)
        error = refused(client, other, cursor=first["next"])
    assert error.code == "INVALID_REQUEST" and "not one of this tab's" in error.message, error


def test_the_cli_prints_the_command_for_the_next_page_and_that_command_reads_it(
    service, client, site, tab
):
    client.navigate(site.url("/snapshot/long.html"), target_id=tab["tabId"])
    first = cli_of(service, "snapshot", "--target", tab["tabId"], "--max-chars", str(MAX))
    assert first.status == 0, first.err
    command = re.search(r"more lines: clawd-browser (snapshot --cursor \S+)$", first.out)
    assert command, first.out[-300:]
    second = cli_of(service, *command[1].split(), "--target", tab["tabId"])
    assert second.status == 0, second.err
    assert unref(second.out.split("\n", 1)[0]) not in unref(first.out)  # it moved on
    assert "Cancel 1" in first.out and "Cancel 1\"" not in second.out


def test_the_agent_tool_says_how_to_read_on_and_reads_on_with_the_cursor(service, site, tab):
    tool = BrowserTool(service.client())
    url = site.url("/snapshot/long.html")
    assert not tool.run({"action": "navigate", "url": url, "targetId": tab["tabId"]}).is_error
    first = tool.run({"action": "snapshot", "targetId": tab["tabId"], "maxChars": MAX})
    cursor = re.search(r"\[more lines: snapshot with cursor=(\S+)\]", first.text)
    assert cursor, first.text[-300:]
    second = tool.run({"action": "snapshot", "targetId": tab["tabId"], "cursor": cursor[1]})
    assert not second.is_error, second.text
    assert "Cancel 240" not in first.text and "[ref=" in second.text
    assert unref(second.text.split("\n")[1]) not in unref(first.text)
