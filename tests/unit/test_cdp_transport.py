"""The frame reader under a Connection, over a real socket pair: what a browser writes on one end
is read on the other, in pieces, whole, fragmented, big, with control frames and deadlines."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from clawd.cdp.transport import CHUNK, TransportClosed, WebSocketTransport, client_frame
from tests.support.ws_frames import read_client_frame, server_frame

WAIT = 5.0


class StubWebSocket:
    """websocket-client's WebSocket after the handshake, as far as the transport uses it."""

    def __init__(self, sock):
        self.sock = sock


@pytest.fixture
def pair():
    ours, browser = socket.socketpair()
    ws = StubWebSocket(ours)
    transport = WebSocketTransport(ws)
    yield transport, browser, ws
    transport.release()
    browser.close()


def test_a_message_split_into_single_bytes_reads_whole(pair):
    transport, browser, _ = pair
    data = server_frame(b'{"id": 1, "result": {}}') + server_frame(
        b'{"method": "Page.loadEventFired"}'
    )

    def dribble():
        for i in range(len(data)):
            browser.sendall(data[i : i + 1])

    writer = threading.Thread(target=dribble)
    writer.start()
    assert transport.recv(WAIT) == b'{"id": 1, "result": {}}'
    assert transport.recv(WAIT) == b'{"method": "Page.loadEventFired"}'
    writer.join(WAIT)


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536, 3 * CHUNK + 17])
def test_every_length_encoding_reads_back_exactly(pair, size):
    transport, browser, _ = pair
    payload = bytes(i % 251 for i in range(size))
    writer = threading.Thread(target=browser.sendall, args=(server_frame(payload, opcode=0x2),))
    writer.start()
    assert transport.recv(WAIT) == payload
    writer.join(WAIT)


def test_several_messages_in_one_write_come_out_one_at_a_time(pair):
    transport, browser, _ = pair
    browser.sendall(b"".join(server_frame(b"m%d" % i) for i in range(5)))
    assert [transport.recv(WAIT) for _ in range(5)] == [b"m0", b"m1", b"m2", b"m3", b"m4"]
    assert not transport.ready()


def test_a_fragmented_message_is_joined_and_a_ping_between_fragments_is_answered(pair):
    transport, browser, _ = pair
    browser.sendall(
        server_frame(b'{"id": 7, ', fin=False)
        + server_frame(b"hello", opcode=0x9)  # ping, mid-message
        + server_frame(b'"result": ', opcode=0x0, fin=False)
        + server_frame(b"{}}", opcode=0x0)
    )
    assert transport.recv(WAIT) == b'{"id": 7, "result": {}}'
    assert read_client_frame(browser) == (0xA, b"hello")


def test_a_pong_is_skipped_and_a_close_frame_reads_as_empty(pair):
    transport, browser, _ = pair
    browser.sendall(server_frame(b"", opcode=0xA) + server_frame(b"\x03\xe8", opcode=0x8))
    assert transport.recv(WAIT) == b""


def test_the_peer_closing_without_a_close_frame_raises(pair):
    transport, browser, _ = pair
    browser.sendall(server_frame(b"last"))
    browser.shutdown(socket.SHUT_WR)
    assert transport.recv(WAIT) == b"last"
    with pytest.raises(TransportClosed):
        transport.recv(WAIT)


def test_a_masked_frame_is_a_protocol_error(pair):
    transport, browser, _ = pair
    browser.sendall(bytes([0x81, 0x80 | 2]) + b"\x01\x02\x03\x04" + b"hi")
    with pytest.raises(TransportClosed, match="masked"):
        transport.recv(WAIT)


def test_a_deadline_keeps_what_came_of_a_message_for_the_next_read(pair):
    transport, browser, _ = pair
    frame = server_frame(b'{"id": 3, "result": {"value": 42}}')
    browser.sendall(frame[:9])
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        transport.recv(0.05)
    assert time.monotonic() - started < WAIT
    assert transport.ready()  # the first bytes are buffered
    browser.sendall(frame[9:])
    assert transport.recv(WAIT) == b'{"id": 3, "result": {"value": 42}}'


def test_wait_returns_on_data_without_reading_it(pair):
    transport, browser, _ = pair
    returned = threading.Event()

    def watch():
        transport.wait()
        returned.set()

    watcher = threading.Thread(target=watch)
    watcher.start()
    assert not returned.wait(0.05)  # nothing to read yet: still waiting
    browser.sendall(server_frame(b"event"))
    assert returned.wait(WAIT)
    watcher.join(WAIT)
    assert transport.ready()
    assert transport.recv(WAIT) == b"event"


def test_interrupt_ends_a_wait_and_a_pending_interrupt_ends_the_next(pair):
    transport, _, _ = pair
    returned = threading.Event()
    watcher = threading.Thread(target=lambda: (transport.wait(), returned.set()))
    watcher.start()
    assert not returned.wait(0.05)
    transport.interrupt()
    assert returned.wait(WAIT)
    watcher.join(WAIT)
    transport.interrupt()
    transport.interrupt()  # two wake-ups collapse into one return
    transport.wait()
    assert not transport.ready()


def test_close_ends_a_read_in_progress_and_says_goodbye(pair):
    transport, browser, _ = pair
    outcome = {}

    def read():
        try:
            transport.recv(None)
        except Exception as exc:  # noqa: BLE001 - handed to the test thread
            outcome["error"] = exc

    reader = threading.Thread(target=read)
    reader.start()
    assert not reader.join(0.05) and reader.is_alive()
    transport.close()
    reader.join(WAIT)
    assert not reader.is_alive()
    assert isinstance(outcome["error"], (TransportClosed, OSError))
    assert read_client_frame(browser) == (0x8, (1000).to_bytes(2, "big"))  # a normal closure
    transport.close()  # a second close sends nothing more
    assert browser.recv(16) == b""


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 200_003])
def test_sent_text_arrives_masked_and_whole(pair, size):
    transport, browser, _ = pair
    text = "".join(chr(0x41 + i % 26) if i % 7 else "é" for i in range(size))
    writer = threading.Thread(target=transport.send, args=(text,))
    writer.start()
    assert read_client_frame(browser) == (0x1, text.encode("utf-8"))
    writer.join(WAIT)


def test_every_frame_gets_a_fresh_mask_key():
    keys = {client_frame(0x1, b"same payload")[2:6] for _ in range(20)}
    assert len(keys) > 1


def test_sends_from_many_threads_never_interleave(pair):
    transport, browser, _ = pair
    texts = [f'{{"id": {i}, "pad": "{"x" * (i * 997 % 70_000)}"}}' for i in range(24)]
    writers = [threading.Thread(target=transport.send, args=(t,)) for t in texts]
    received = []
    reader = threading.Thread(
        target=lambda: received.extend(read_client_frame(browser)[1].decode() for _ in texts)
    )
    reader.start()
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(WAIT)
    reader.join(WAIT)
    assert sorted(received) == sorted(texts)


def test_close_does_not_wait_on_a_peer_that_stopped_reading(pair):
    transport, _, _ = pair
    outcome = {}

    def flood():
        try:
            transport.send("x" * (16 << 20))  # far more than the socket pair buffers
        except OSError as exc:
            outcome["error"] = exc

    sender = threading.Thread(target=flood)
    sender.start()
    deadline = time.monotonic() + WAIT
    while not transport._send_lock.locked() and time.monotonic() < deadline:
        threading.Event().wait(0.005)  # until the send holds the lock, stuck
    assert transport._send_lock.locked()
    started = time.monotonic()
    transport.close()
    assert time.monotonic() - started < 1.0  # no goodbye frame waits behind the stuck send
    sender.join(WAIT)
    assert not sender.is_alive() and isinstance(outcome.get("error"), OSError)
