"""Charset labels web_fetch accepts: only the WHATWG Encoding Standard's, whatever codecs Python
has (punycode, hex, rot13, zlib...); any other label falls back to detection, through the HTTP
route with no 500 and no traceback; the real labels decode as browsers do; decoding stops at the
fetch's deadline, and every step grows linearly with the body."""

from __future__ import annotations

import logging
import time

import pytest
import requests

from clawd import errors
from clawd.web import decode
from clawd.web.watchdog import Deadline
from tests.support.service import RunningService
from tests.support.site import SITE_ROOT, answer
from tests.support.webtier import web_config

RUSSIAN = "Маяк на северном берегу"
# Python codecs that are no WHATWG encoding: bytes<->bytes transforms, quadratic or escaping ones
NOT_WEB_LABELS = [
    "punycode",
    "hex",
    "rot13",
    "zlib",
    "base64",
    "idna",
    "uu",
    "bz2",
    "quopri",
    "unicode_escape",
    "raw_unicode_escape",
    "utf-7",
    "utf-32",
    "cp037",
]


@pytest.fixture(scope="module")
def svc():
    config = web_config(
        {"fetch": {"timeoutSeconds": 10, "cacheTtlMinutes": 0}},
        extra={"browser": {"enabled": False}},
    )
    service = RunningService(config)
    yield service
    service.close()


def fetch(service: RunningService, url: str) -> requests.Response:
    return requests.post(
        service.url + "/web/fetch",
        json={"url": url, "wrap": False},
        timeout=60,
        headers={"Authorization": f"Bearer {service.token}"},
    )


# -- labels that are not the web's --------------------------------------------------------------
@pytest.mark.parametrize("label", NOT_WEB_LABELS)
def test_a_python_codec_label_falls_back_to_detection_with_200_and_no_traceback(
    svc, site, caplog, label
):
    body = (SITE_ROOT / "web" / "cp1251.html").read_bytes()
    path = f"/web/dyn/charset-{label}"
    site.route(path, lambda h: answer(h, 200, body, f"text/html; charset={label}"))
    with caplog.at_level(logging.DEBUG):
        reply = fetch(svc, site.url(path))
    assert reply.status_code == 200, reply.text
    assert reply.json()["title"] == RUSSIAN and "Смотритель маяка" in reply.json()["text"]
    assert [
        r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR
    ] == []


@pytest.mark.parametrize("label", NOT_WEB_LABELS)
def test_a_python_codec_label_in_meta_charset_is_ignored_too(label):
    body = f'<meta charset="{label}"><p>café naïve ☃</p>'.encode()
    assert decode.decode(body, "text/html", "html") == (body.decode(), "utf-8")


def test_a_punycode_labelled_body_decodes_in_linear_work():
    """Python's punycode decoder is quadratic (256 KiB took 4-10 s): the label is refused, so
    8 times the bytes cost about 8 times the work, not 64."""

    def work(size: int) -> float:
        body = b"-" + b"ba" * (size // 2)
        return _best_cpu(lambda: decode.decode(body, "text/plain; charset=punycode", "text"))

    small, large = work(32 * 1024), work(256 * 1024)
    assert large / small < 16, (small, large)


# -- the web's own labels -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("label", "body", "text", "codec"),
    [
        ("latin1", b"\x80 caf\xe9", "€ café", "cp1252"),  # WHATWG: latin1 is windows-1252
        ("US-ASCII", b"\x93q\x94", "“q”", "cp1252"),
        ("shift_jis", "日本語のテキスト".encode("cp932"), "日本語のテキスト", "cp932"),
        ("euc-kr", "한국어 텍스트".encode("cp949"), "한국어 텍스트", "cp949"),
        ("utf-16le", "naïve ☃".encode("utf-16-le"), "naïve ☃", "utf-16-le"),
        ("utf-16", "naïve ☃".encode("utf-16-le"), "naïve ☃", "utf-16-le"),  # WHATWG: LE
        ("x-user-defined", b"a\x80\xff", "a\uf780\uf7ff", "x-user-defined"),
        ("gb2312", "中文".encode("gb18030") + b"\x81\x30\x81\x30", "中文\x80", "gb18030"),
        ("koi8-r", "Маяк".encode("koi8-r"), "Маяк", "koi8-r"),
        (" Windows-1251 ", "Маяк".encode("cp1251"), "Маяк", "cp1251"),
    ],
)
def test_whatwg_labels_decode_as_browsers_do(label, body, text, codec):
    assert decode.decode(body, f"text/plain; charset={label}", "text") == (text, codec)


@pytest.mark.parametrize("label", ["iso-2022-kr", "hz-gb-2312", "csiso2022kr", "iso-2022-cn"])
def test_labels_of_the_replacement_encoding_read_as_one_replacement_character(label):
    body = b"\x1b$)C\x0e!!\x0fhello" * 1000
    assert decode.decode(body, f"text/html; charset={label}", "html") == ("\ufffd", "replacement")


def test_meta_charset_utf_16_and_x_user_defined_read_as_the_html_prescan_says():
    page = b'<meta charset="%s"><p>caf\xc3\xa9 \x80</p>'
    assert decode.decode(page % b"utf-16le", "text/html", "html")[1] == "utf-8"
    assert decode.decode(page % b"x-user-defined", "text/html", "html") == (
        (page % b"x-user-defined").decode("cp1252"),
        "cp1252",
    )


def test_detection_answers_only_web_encodings():
    body = (SITE_ROOT / "web" / "cp1251.html").read_bytes()
    assert decode.decode(body, "text/html", "html")[1] == "cp1251"
    assert {"utf-7", "utf-32", "cp037", "punycode"}.isdisjoint(decode._detectable())


# -- the deadline ---------------------------------------------------------------------------------
def test_a_passed_deadline_stops_decoding_with_web_timeout():
    with pytest.raises(errors.WebTimeout):
        decode.decode(b"x" * 10, "text/plain; charset=utf-8", "text", deadline=Deadline(0))


def test_decoding_looks_at_the_deadline_between_chunks():
    """A deadline that passes half way through a 2 MiB body stops the decoding there."""

    class Halfway:
        looks = 0

        def check(self) -> None:
            self.looks += 1
            if self.looks > 16:
                raise errors.WebTimeout("time is up")

    deadline = Halfway()
    body = b"\xff" * (2 * 1024 * 1024)
    with pytest.raises(errors.WebTimeout):
        decode.decode(body, "text/plain; charset=iso-8859-8", "text", deadline=deadline)
    assert deadline.looks == 17


# -- the sniffing patterns are linear -------------------------------------------------------------
def test_sniffing_a_run_of_comments_grows_linearly():
    """`<!---->` * k then no tag: the HTML-start pattern once tried each of the 2**k ways of
    grouping the comments (k=22 took a second, 4 KiB of them forever)."""

    def work(k: int) -> float:
        head = b"<!---->" * k + b"x"
        return _best_cpu(lambda: [decode.kind_of(None, head) for _ in range(50)])

    small, large = work(8), work(16)  # 2x the input: 2x the work, not 256x
    assert large / small < 8, (small, large)
    assert decode.kind_of(None, b"<!-- a --> <!-- b -->\n<p>hi") == "html"
    assert decode.kind_of(None, b"<!-- a -->junk--><p>hi") == "text"  # a comment ends at -->


def test_finding_meta_charset_in_a_run_of_meta_tags_grows_linearly():
    """`<meta ` * k with no charset: each `<meta` was searched up to 512 bytes on, through the
    ones after it (quadratic below that window); now up to the next `<`."""

    def work(k: int) -> float:
        body = b"<meta " * k
        return _best_cpu(lambda: [decode._meta_charset(body) for _ in range(50)])

    small, large = work(16), work(128)  # 8x the input
    assert large / small < 16, (small, large)
    assert decode._meta_charset(b"<meta " * 100 + b"<meta charset='koi8-r'>") == "koi8-r"
    assert decode._meta_charset(b'<META http-equiv=x content="text/html; Charset=big5">') == "big5"


def _best_cpu(run, rounds: int = 3) -> float:
    """CPU seconds of this thread for run(), the best of `rounds` (other threads don't count)."""
    best = float("inf")
    for _ in range(rounds):
        start = time.thread_time()
        run()
        best = min(best, time.thread_time() - start)
    return best
