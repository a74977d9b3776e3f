"""The request line and headers, read by clawd's own parser (server/handler.py), over a raw
socket: what http.server accepted still works, and what it answered with HTML pages now gets a
JSON error with a code."""

from __future__ import annotations

import json
import re
import socket
import urllib.parse

import pytest


def exchange(service, data: bytes, *, answers: int = 1) -> list[tuple[str, dict, bytes]]:
    """Send raw bytes; read `answers` answers (status line, headers, body) or until the service
    closes the connection."""
    port = urllib.parse.urlsplit(service.url).port
    out = []
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        buffer = b""
        while len(out) < answers:
            while b"\r\n\r\n" not in buffer:
                chunk = sock.recv(65536)
                if not chunk:
                    return out
                buffer += chunk
            head, _, buffer = buffer.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {
                k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])
            }
            length = int(headers.get("content-length", 0))
            while len(buffer) < length:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                buffer += chunk
            body, buffer = buffer[:length], buffer[length:]
            out.append((lines[0], headers, body))
        return out


def request(service, line: str = "GET / HTTP/1.1", *extra: str, auth: bool = True) -> bytes:
    headers = (
        ["Host: 127.0.0.1"]
        + ([f"Authorization: Bearer {service.token}"] if auth else [])
        + list(extra)
    )
    return (line + "\r\n" + "".join(h + "\r\n" for h in headers) + "\r\n").encode("latin-1")


def status_and_code(answer) -> tuple[int, str | None]:
    line, _, body = answer
    return int(line.split()[1]), json.loads(body).get("code")


def test_a_plain_request_is_answered_and_the_connection_kept(service):
    answers = exchange(service, request(service) * 2, answers=2)
    assert [status_and_code(a)[0] for a in answers] == [200, 200]
    line, headers, _ = answers[0]
    assert line == "HTTP/1.1 200 OK" and headers["content-type"] == "application/json"
    assert "connection" not in headers and headers["cache-control"] == "no-store"
    assert re.fullmatch(r"\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT", headers["date"]), headers[
        "date"
    ]


def test_header_names_are_case_insensitive_and_folded_lines_continue(service):
    lower = exchange(
        service,
        request(service, "GET / HTTP/1.1", f"authorization: Bearer {service.token}", auth=False),
    )
    assert status_and_code(lower[0])[0] == 200
    folded = exchange(
        service,
        request(
            service, "GET / HTTP/1.1", "Authorization: Bearer", f"  {service.token}", auth=False
        ),
    )
    assert status_and_code(folded[0])[0] == 200


def test_a_repeated_header_reads_as_its_first_value(service):
    first_good = exchange(
        service, request(service, "GET / HTTP/1.1", "Authorization: Bearer wrong")
    )
    assert status_and_code(first_good[0])[0] == 200
    first_wrong = exchange(
        service,
        request(
            service,
            "GET / HTTP/1.1",
            "Authorization: Bearer wrong",
            f"Authorization: Bearer {service.token}",
            auth=False,
        ),
    )
    assert status_and_code(first_wrong[0]) == (401, "UNAUTHORIZED")


def test_connection_close_and_http_1_0_close_after_the_answer(service):
    for data in (
        request(service, "GET / HTTP/1.1", "Connection: close"),
        request(service, "GET / HTTP/1.0"),
    ):
        answers = exchange(service, data + request(service), answers=2)
        assert len(answers) == 1 and status_and_code(answers[0])[0] == 200
        assert answers[0][1].get("connection") == "close"


def test_expect_100_continue_gets_a_continue_first(service):
    head = request(
        service,
        "POST /no-such-route HTTP/1.1",
        "Expect: 100-continue",
        "Content-Type: application/json",
        "Content-Length: 2",
    )
    port = urllib.parse.urlsplit(service.url).port
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head)
        interim = b""
        while b"\r\n\r\n" not in interim:
            chunk = sock.recv(65536)
            assert chunk, "closed before 100 Continue"
            interim += chunk
        assert interim.startswith(b"HTTP/1.1 100 Continue\r\n")


@pytest.mark.parametrize(
    "data, status, code",
    [
        (b"GARBAGE\r\n\r\n", 400, "INVALID_REQUEST"),
        (b"GET / HTTP/x.y\r\n\r\n", 400, "INVALID_REQUEST"),
        (b"GET / HTTP/2.0\r\n\r\n", 400, "INVALID_REQUEST"),
        (b"GET /\r\n\r\n", 400, "INVALID_REQUEST"),  # HTTP/0.9
        (b"GET / HTTP/1.1\r\nno colon here\r\n\r\n", 400, "INVALID_REQUEST"),
        (
            b"GET / HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(101)) + b"\r\n",
            431,
            "HEADERS_TOO_LARGE",
        ),
        (b"GET / HTTP/1.1\r\nX-Long: " + b"y" * 70000 + b"\r\n\r\n", 431, "HEADERS_TOO_LARGE"),
    ],
)
def test_malformed_requests_get_a_json_error_with_a_code_and_a_closed_connection(
    service, data, status, code
):
    answers = exchange(service, data + request(service), answers=2)
    assert len(answers) == 1, answers
    assert status_and_code(answers[0]) == (status, code)
    assert answers[0][1].get("connection") == "close"
    assert exchange(service, request(service))[0][0] == "HTTP/1.1 200 OK"  # and it keeps serving
