"""What a fetched body is and how to read it as text: its kind (html, markdown, json, text or
binary) from the Content-Type header or, without one, from the bytes; its characters by the
header's charset, then the document's own <meta charset>, then detection."""

from __future__ import annotations

import codecs
import re

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-yaml",
        "application/yaml",
        "application/toml",
        "application/x-sh",
        "application/rss+xml",
        "application/atom+xml",
    }
)
SNIFF_BYTES = 4096

_META_CHARSET = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]{1,40})""", re.IGNORECASE
)
_HTML_START = re.compile(
    rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body|meta|title|div|p)\b",
    re.IGNORECASE | re.DOTALL,
)
# WHATWG Encoding: these labels mean windows-1252 on the web, whatever Python's codecs say
_WEB_ALIASES = {
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "iso8859-1": "cp1252",
    "x-user-defined": "cp1252",
}
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def media_type(content_type: str | None) -> str:
    """`text/html; charset=x` -> `text/html` (lowercase); '' when absent."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def header_charset(content_type: str | None) -> str | None:
    for param in (content_type or "").split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip("\"'") or None
    return None


def kind_of(content_type: str | None, head: bytes) -> str:
    """html | markdown | json | text | binary, by the header, else by sniffing the first bytes."""
    kind = declared_kind(content_type)
    if kind is not None:
        return kind
    return _sniff(head[:SNIFF_BYTES])


def declared_kind(content_type: str | None) -> str | None:
    """The kind the Content-Type header declares; None when it says nothing useful."""
    mtype = media_type(content_type)
    if not mtype or mtype in ("application/octet-stream", "binary/octet-stream"):
        return None  # servers label anything so: look at the bytes
    if mtype in HTML_TYPES:
        return "html"
    if mtype in MARKDOWN_TYPES:
        return "markdown"
    if mtype == "application/json" or mtype.endswith("+json"):
        return "json"
    if mtype.startswith("text/") or mtype in TEXT_APPLICATION_TYPES or mtype.endswith("+xml"):
        return "text"
    return "binary"


def _sniff(head: bytes) -> str:
    if any(head.startswith(bom) for bom, _ in _BOMS[1:]):
        return "text"
    if b"\x00" in head:
        return "binary"
    if _HTML_START.match(head):
        return "html"
    stripped = head.lstrip()
    if stripped[:1] in (b"{", b"[") and _decodes(head):
        return "json"
    return "text" if _decodes(head) else "binary"


def _decodes(head: bytes) -> bool:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(head) - 3  # cut in the middle of the last character
    return True


def decode(body: bytes, content_type: str | None, kind: str) -> tuple[str, str]:
    """(text, encoding used). Never raises: bad bytes become U+FFFD."""
    encoding = _encoding_for(body, content_type, kind)
    return body.decode(encoding, errors="replace"), encoding


def _encoding_for(body: bytes, content_type: str | None, kind: str) -> str:
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name  # a byte order mark wins over every label (WHATWG)
    for label in (header_charset(content_type), _meta_charset(body) if kind == "html" else None):
        known = _known(label)
        if known:
            return known
    if kind == "json" or _decodes(body[:65536]):
        return "utf-8"
    return _detected(body)


def _meta_charset(body: bytes) -> str | None:
    found = _META_CHARSET.search(body[:16384])
    return found.group(1).decode("ascii", "ignore") if found else None


def _known(label: str | None) -> str | None:
    """The codec for a charset label, or None for a label that names none (`charset=foo`)."""
    if not label:
        return None
    label = label.strip().lower()
    label = _WEB_ALIASES.get(label, label)
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    # utf-16 labels on a body without a BOM: browsers read such pages as UTF-8 (WHATWG)
    return "utf-8" if name.startswith("utf-16") else label


def _detected(body: bytes) -> str:
    from charset_normalizer import from_bytes  # ships with requests; only for unlabelled bytes

    best = from_bytes(body[:65536]).best()
    return best.encoding if best is not None else "utf-8"
