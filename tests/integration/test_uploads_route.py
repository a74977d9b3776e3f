"""PUT /uploads/<name>: the bytes of a file for pages to upload,
from a client on another machine."""

from __future__ import annotations

import socket

import pytest
import requests

from clawd import errors


def test_put_stores_the_bytes_under_a_safe_name_and_replaces_an_older_file(
    service, client, tmp_path
):
    source = tmp_path / "report.csv"
    source.write_bytes(b"a,b\n1,2\n")
    stored = client.put_upload(source)
    path = service.service.layout.uploads / "report.csv"
    assert stored == {"ok": True, "name": "report.csv", "path": str(path), "bytes": 8}
    source.write_bytes(b"newer")
    client.put_upload(source)
    assert path.read_bytes() == b"newer"
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".incoming-")]


@pytest.mark.parametrize(
    "name, kept",
    [
        ("..%2F..%2Fetc%2Fpasswd", "passwd"),
        (".hidden", "hidden"),
        ("a%00b.txt", "ab.txt"),
        ("my%20report.txt", "my report.txt"),
    ],
)
def test_a_name_cannot_leave_the_uploads_directory_or_hide_there(
    service, client, tmp_path, name, kept
):
    answer = requests.put(
        f"{service.url}/uploads/{name}",
        data=b"x",
        timeout=10,
        headers={"Authorization": f"Bearer {service.token}"},
    )
    assert answer.status_code == 200, answer.text
    stored = answer.json()
    assert stored["name"] == kept and stored["path"] == str(service.service.layout.uploads / kept)


def test_a_body_over_the_limit_is_refused_before_it_is_read(service):
    with socket.create_connection(("127.0.0.1", service.server.port), timeout=10) as sock:
        sock.sendall(
            "PUT /uploads/big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {service.token}\r\n"
            f"Content-Length: {100 << 20}\r\n\r\n".encode()
        )
        answer = sock.recv(65536).decode()
    assert answer.startswith("HTTP/1.1 413") and "BODY_TOO_LARGE" in answer and "64 MiB" in answer


def test_without_credentials_nothing_is_stored(service):
    answer = requests.put(f"{service.url}/uploads/intruder.txt", data=b"x", timeout=10)
    assert answer.status_code == 401
    assert not (service.service.layout.uploads / "intruder.txt").exists()


def test_json_routes_still_refuse_a_body_over_1_mib(client):
    with pytest.raises(errors.BodyTooLarge):
        client.request("POST", "/navigate", json={"url": "x" * (2 << 20)})
